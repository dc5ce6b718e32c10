export * from './client';
export * from './config';
export * from './errors';
export * from './metrics';
