import { useCallback, useEffect, useState } from 'preact/hooks';
import { parseRoute, routeHref, type Route } from './routes.ts';

/** The current route from location.hash, following back/forward and links. */
export function useHashRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const navigate = useCallback((next: Route) => {
    location.hash = routeHref(next);
  }, []);
  return [route, navigate];
}
