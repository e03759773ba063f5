import type { Command } from 'commander';

// Being written in this session.
export function registerAuditCommands(_program: Command): void {}
