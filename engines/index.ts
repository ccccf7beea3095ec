export * from './types';
export * from './registry';
export * from './catalog';
export * from './samples';
