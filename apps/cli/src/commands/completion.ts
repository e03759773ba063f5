import type { Command } from 'commander';

// Being written in this session.
export function registerCompletionCommand(_program: Command): void {}
