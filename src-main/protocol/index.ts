export * from './status';
export * from './views';
export * from './commands';
export * from './events';
export * from './wire';
export * from './describe';
