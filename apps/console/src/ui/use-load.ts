import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Load<T> =
  | { status: 'loading'; data: T | undefined; error: undefined }
  | { status: 'loaded'; data: T; error: undefined }
  | { status: 'error'; data: T | undefined; error: unknown };

const LOADING: Load<never> = { status: 'loading', data: undefined, error: undefined };

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => Object.is(value, b[index]));
}

/**
 * Loads data for a view. The request is aborted when the view goes away or its inputs change, and
 * an answer that arrives after that is dropped (a slow old answer never overwrites a newer view).
 * `reload` keeps the shown data while it refreshes; new inputs (another Namespace, another
 * revision) never show the old inputs' data, not even for one frame.
 */
export function useLoad<T>(loader: (signal: AbortSignal) => Promise<T>, inputs: readonly unknown[]): Load<T> & { reload: () => void } {
  const [state, setState] = useState<{ load: Load<T>; inputs: readonly unknown[] }>({ load: LOADING, inputs });
  const [generation, setGeneration] = useState(0);
  const loaderRef = useRef(loader);
  loaderRef.current = loader;

  useEffect(() => {
    const controller = new AbortController();
    const own = (load: Load<T>) => ({ load, inputs });
    setState((previous) => own(sameInputs(previous.inputs, inputs) ? { status: 'loading', data: previous.load.data, error: undefined } : LOADING));
    loaderRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState(own({ status: 'loaded', data, error: undefined }));
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((previous) => own({ status: 'error', data: sameInputs(previous.inputs, inputs) ? previous.load.data : undefined, error }));
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...inputs, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  const shown = sameInputs(state.inputs, inputs) ? state.load : LOADING;
  return { ...shown, reload };
}
