import type { Command } from 'commander';

// Being written in this session.
export function registerAgentCommands(_program: Command): void {}
