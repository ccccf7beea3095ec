// Text splitting lives with the engines it feeds (engines/text.ts); the synthesis pipeline takes it from here with the rest.
export * from '../engines/text';
export * from './prosody';
export * from './render';
export * from './finish';
export * from './analysis';
export * from './wav';
