// The service runtime: configuration, logging, metrics, MongoDB, NATS, gRPC, the outbox relay and
// leases. Adapters, handlers and wiring import it; domain code never does.
export * from './config';
export * from './ports';
export * from './logger';
export * from './metrics';
export * from './caller-metadata';
export * from './nats';
export * from './lease';
export * from './mongo';
export * from './outbox';
export * from './grpc/server';
export * from './grpc/client';
export * from './grpc/wire';
export * from './runtime';
export * from './merchant-deletion';
export * from './processor-guard';
