export * from './api-client.ts';
export * from './api-error.ts';
export * from './drift-text.ts';
export * from './follow-deployment-events.ts';
export * from './log-tail.ts';
export * from './pause.ts';
export * from './server-sent-events.ts';
