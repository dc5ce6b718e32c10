import { infraDown } from '@ppay/devstack';
import { externalInfra, TEST_INFRA } from './infra';

export default async function globalTeardown(): Promise<void> {
  if (externalInfra() || process.env.KEEP_TEST_INFRA === '1') return;
  await infraDown(TEST_INFRA);
}
