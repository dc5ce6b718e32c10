/** @type {import('jest').Config} */
// Transpile only: type checking is `npm run lint` (tsc over sources and tests), not jest's job.
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
};

module.exports = {
  // Integration suites start real processes; unit tests finish far below this.
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
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
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // Static checks of the Dockerfile, compose file, Helm chart and dashboards (no engine needed).
      displayName: 'deploy',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/deploy/**/*.test.ts'],
    },
  ],
};
