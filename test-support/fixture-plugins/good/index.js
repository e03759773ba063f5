// An OpenClaw tool plugin in the shape `definePluginEntry` returns, without importing the SDK
// (the package has no dependencies, so the install needs nothing but the registry).
function text(value) {
  return { content: [{ type: 'text', text: value }], details: { value } };
}

const tools = [
  { name: 'fixture_echo', description: 'Echo the input', run: (params) => String(params.input ?? '') },
  { name: 'fixture_clock', description: 'Return the current time', run: () => new Date().toISOString() },
  { name: 'fixture_write', description: 'Pretend to write a note', run: (params) => `wrote ${String(params.input ?? '').length} chars` },
];

export default {
  id: 'occ-fixture-good',
  name: 'OCC fixture (good)',
  description: 'Registers three tools; used by the OCC runtime tests.',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  register(api) {
    for (const tool of tools) {
      api.registerTool(
        {
          name: tool.name,
          description: tool.description,
          parameters: { type: 'object', properties: { input: { type: 'string' } }, additionalProperties: false },
          async execute(_id, params) {
            return text(tool.run(params ?? {}));
          },
        },
        { name: tool.name, optional: true },
      );
    }
  },
};
