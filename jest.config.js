/** @type {import('jest').Config} */
// Transpile only: type checking is `npm run lint` (tsc over sources and tests), not jest's job.
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  // fastify's inject (light-my-request) requires `cookie` 2, which ships ESM only: Node 20 loads it
  // with require(esm), jest 29 cannot, so that one package is transpiled to CommonJS for the tests.
  '/node_modules/cookie/.+\\.js$': [
    'ts-jest',
    { tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022', isolatedModules: true }, diagnostics: false },
  ],
};
const transformIgnorePatterns = ['/node_modules/(?!cookie/)'];
// Workspace packages resolve to their TypeScript sources, so tests never run a stale build of the
// kernel, the runtime or the contract (the generated proto types, from `npm run gen:proto`, are
// type-only imports).
const moduleNameMapper = {
  '^@ppay/kernel$': '<rootDir>/packages/kernel/src/index.ts',
  '^@ppay/runtime$': '<rootDir>/packages/runtime/src/index.ts',
  '^@ppay/runtime/telemetry$': '<rootDir>/packages/runtime/src/telemetry/tracing.ts',
  '^@ppay/proto$': '<rootDir>/proto/src/index.ts',
  '^@ppay/stripe-support$': '<rootDir>/packages/stripe-support/src/index.ts',
  '^@ppay/webhooks-receiver$': '<rootDir>/packages/webhooks-receiver/src/index.ts',
  '^@ppay/devstack$': '<rootDir>/packages/devstack/src/index.ts',
};

module.exports = {
  // Integration suites start real processes; unit tests finish far below this.
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testMatch: [
        '<rootDir>/packages/*/src/**/*.test.ts',
        '<rootDir>/services/*/src/**/*.test.ts',
        '<rootDir>/gateway/src/**/*.test.ts',
        '<rootDir>/test/architecture/**/*.test.ts',
      ],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // Fault injection under load (`npm run test:chaos`): its own infrastructure, which it kills.
      displayName: 'chaos',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
    },
    {
      // Static checks of the Dockerfile, compose file, Helm chart and dashboards (no engine needed).
      displayName: 'deploy',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/deploy/**/*.test.ts'],
    },
  ],
};
