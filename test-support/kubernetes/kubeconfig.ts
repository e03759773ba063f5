/** A kubeconfig (JSON, which is YAML) for one cluster reached with a bearer token. */
export function kubeConfigFor(url: string, ca: string, token: string, namespace = 'default'): string {
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: url, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }],
      users: [{ name: 'fake', user: { token } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace } }],
      'current-context': 'fake',
      preferences: {},
    },
    null,
    2,
  );
}
