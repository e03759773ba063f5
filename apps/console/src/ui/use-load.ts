import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Load<T> =
  | { status: 'loading'; data: T | undefined; error: undefined }
  | { status: 'loaded'; data: T; error: undefined }
  | { status: 'error'; data: T | undefined; error: unknown };

/**
 * Loads data for a view. The request is aborted when the view goes away or its inputs change, and
 * an answer that arrives after that is dropped (a slow old answer never overwrites a newer view).
 * `reload` keeps the shown data while it refreshes.
 */
export function useLoad<T>(loader: (signal: AbortSignal) => Promise<T>, inputs: readonly unknown[]): Load<T> & { reload: () => void } {
  const [state, setState] = useState<Load<T>>({ status: 'loading', data: undefined, error: undefined });
  const [generation, setGeneration] = useState(0);
  const loaderRef = useRef(loader);
  loaderRef.current = loader;

  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ status: 'loading', data: previous.data, error: undefined }));
    loaderRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'loaded', data, error: undefined });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((previous) => ({ status: 'error', data: previous.data, error }));
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...inputs, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}
