/** A suite file's shared state: started before the file's first test, stopped after its last. */
export interface SuiteWorld {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Ties `world` to the hooks of the suite file that calls it (once, in its top describe) and returns it. */
export function aroundSuite<W extends SuiteWorld>(world: W): W {
  beforeAll(() => world.start());
  afterAll(() => world.stop());
  return world;
}
