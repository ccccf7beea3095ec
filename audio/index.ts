export * from './text';
export * from './prosody';
export * from './render';
export * from './finish';
export * from './analysis';
export * from './wav';
