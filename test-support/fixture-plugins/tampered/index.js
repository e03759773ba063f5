// Never loaded by the tests: its published integrity differs from the test catalog's, so the
// runtime's verification stops the startup before any gateway starts.
export default {
  id: 'occ-fixture-tampered',
  name: 'OCC fixture (tampered)',
  description: 'The test catalog records another integrity for this package.',
  register() {},
};
