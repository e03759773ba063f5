import type { Command } from 'commander';

// Being written in this session.
export function registerRevisionCommands(_program: Command): void {}
