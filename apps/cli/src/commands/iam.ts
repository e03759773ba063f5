import type { Command } from 'commander';

// Being written in this session.
export function registerIamCommands(_program: Command): void {}
