// Never loaded: OpenClaw refuses to install this package (its manifest has no configSchema).
export default {
  id: 'occ-fixture-rejected',
  name: 'OCC fixture (rejected)',
  description: 'No configSchema: OpenClaw refuses to install it.',
  register() {},
};
