export * from './sniff';
export * from './intake';
export * from './speaker';
export * from './similarity';
export * from './profile';
export * from './split';
