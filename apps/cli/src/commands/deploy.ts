import type { Command } from 'commander';

// Being written in this session.
export function registerDeployCommands(_program: Command): void {}
