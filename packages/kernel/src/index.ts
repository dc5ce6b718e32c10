// The pure kernel: what domain code may import. Nothing here loads gRPC, HTTP, database or messaging
// libraries (test/architecture checks the whole import graph); the runtime lives in @ppay/runtime.
export * from './money';
export * from './errors';
export * from './ids';
export * from './components';
export * from './deadline';
export * from './caller';
export * from './events';
export * from './countries';
export * from './ttl-cache';
export * from './write-batcher';
export * from './secret-box';
export * from './subscriptions';
export * from './calendar';
export * from './installments';
