// Import rules of src/ (docs/architecture.md): no circle between files, folders point one
// way. `npm run lint:deps` checks them; CI runs it.
/** Layers from the bottom up: a folder may import its own layer and the layers below. */
const LAYERS = [
  ['values', 'version.ts'],
  ['model'],
  ['store'],
  ['views'],
  ['endpoints'],
  ['pipeline', 'export'],
  ['serving', 'auth', 'users'],
  ['import', 'fake1c'],
  ['sync', 'demo'],
  ['openapi', 'mcp', 'http', 'admin'],
  ['app'],
  ['cli'],
]
const folder = (name) => (name.endsWith('.ts') ? name.replace(/\./g, '\\.') : `${name}/`)
const above = (i) => LAYERS.slice(i + 1).flat().map(folder).join('|')

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle between files: move the shared part down.',
      from: {},
      to: { circular: true },
    },
    ...LAYERS.slice(0, -1).flatMap((layer, i) =>
      layer.map((name) => ({
        name: `layer-${name.replace('.ts', '')}`,
        severity: 'error',
        comment: `src/${name} must not import a folder above its layer`,
        from: { path: `^src/${folder(name)}` },
        to: { path: `^src/(${above(i)})` },
      })),
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^(dist|node_modules|clients)' },
  },
}
