import { infraUp } from '@ppay/devstack';
import { externalInfra, TEST_INFRA } from './infra';

export default async function globalSetup(): Promise<void> {
  if (externalInfra()) return;
  await infraUp({ ...TEST_INFRA, fresh: true });
}
