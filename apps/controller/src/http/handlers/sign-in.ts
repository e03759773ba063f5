import { pollDeviceSignIn, startDeviceSignIn } from '../../core/use-cases/sign-in.ts';
import { deleteSignInProvider, getSignInOptions, getSignInProvider, putSignInProvider } from '../../core/use-cases/sign-in-provider.ts';
import { createSignInRule, deleteSignInRule, getSignInRule, listSignInRules } from '../../core/use-cases/sign-in-rules.ts';
import { none, ok, type HandlerMap } from './handler.ts';

/** Single sign-on's API (docs/sign-in.md); the browser's redirects are http/sign-in-browser.ts. */
export const signInHandlers = {
  getSignInOptions: async ({ deps }) => ok(await getSignInOptions(deps)),
  getSignInProvider: async ({ deps }) => ok(await getSignInProvider(deps)),
  putSignInProvider: async ({ deps, caller, body }) => ok(await putSignInProvider(deps, caller, body)),
  deleteSignInProvider: async ({ deps, caller }) => (await deleteSignInProvider(deps, caller), none()),
  startDeviceSignIn: async ({ deps, requestId }) => ok(await startDeviceSignIn(deps, requestId)),
  pollDeviceSignIn: async ({ deps, body, requestId }) => {
    const polled = await pollDeviceSignIn(deps, body.deviceRequestId, requestId);
    return polled.status === 'pending' ? { data: polled, status: 200 } : ok(polled);
  },
  createSignInRule: async ({ deps, caller, body }) => ok(await createSignInRule(deps, caller, body)),
  listSignInRules: async ({ deps, caller, query }) => ok(await listSignInRules(deps, caller, query)),
  getSignInRule: async ({ deps, caller, params }) => ok(await getSignInRule(deps, caller, params.id)),
  deleteSignInRule: async ({ deps, caller, params }) => (await deleteSignInRule(deps, caller, params.id), none()),
} satisfies Partial<HandlerMap>;
