export * from './currencies';
export * from './decimal';
export * from './money';
export * from './processor-groups';
export * from './split';
