// A resource that several vitest projects of one run share: global setups run in the one main
// process, once per project, so the first project to need it starts it and the last one to
// finish stops it.
interface Entry<T> {
  value: Promise<T>;
  users: number;
  stop: (value: T) => Promise<void>;
}

const registry = ((globalThis as { __occSharedTestResources?: Map<string, Entry<unknown>> }).__occSharedTestResources ??= new Map());

/** Starts (or joins) the resource named `key`; the returned function releases this project's use. */
export async function acquireShared<T>(key: string, start: () => Promise<T>, stop: (value: T) => Promise<void>): Promise<{ value: T; release: () => Promise<void> }> {
  let entry = registry.get(key) as Entry<T> | undefined;
  if (!entry) {
    entry = { value: start(), users: 0, stop };
    registry.set(key, entry as Entry<unknown>);
  }
  entry.users += 1;
  const mine = entry;
  let value: T;
  try {
    value = await mine.value;
  } catch (error) {
    registry.delete(key);
    throw error;
  }
  let released = false;
  return {
    value,
    release: async () => {
      if (released) return;
      released = true;
      mine.users -= 1;
      if (mine.users > 0) return;
      registry.delete(key);
      await mine.stop(value);
    },
  };
}
