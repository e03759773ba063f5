/**
 * Where the runtime serves in a pod, fixed: nothing else listens there, and the NetworkPolicies
 * (agent.ts) and the Service (the container port named `gateway`, revision.ts) name them;
 * docs/compute-kubernetes.md says so.
 */
export const POD_STATUS_PORT = 8181;
export const POD_GATEWAY_PORT = 18789;
