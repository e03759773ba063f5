import type { Command } from 'commander';

// Being written in this session.
export function registerPluginCommands(_program: Command): void {}
