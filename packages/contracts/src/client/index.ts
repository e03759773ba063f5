export * from './api-client.ts';
export * from './api-error.ts';
export * from './server-sent-events.ts';
