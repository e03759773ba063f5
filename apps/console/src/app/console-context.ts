import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleSessionInfo } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import type { Route } from './routes.ts';

/** What every signed-in page may use: the API, the session, and navigation. */
export interface ConsoleContextValue {
  api: ApiClient;
  session: ConsoleSessionInfo;
  navigate: (route: Route) => void;
  /** Rejects when the server could not end the session (then the page stays signed in). */
  signOut: () => Promise<void>;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside a signed-in console');
  return value;
}
