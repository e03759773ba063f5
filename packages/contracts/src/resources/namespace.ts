import type { Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';

export const NamespaceSchema = Closed({ id: IdSchema('namespace'), name: NameSchema, createdAt: TimestampSchema });
export type Namespace = Static<typeof NamespaceSchema>;

export const CreateNamespaceBodySchema = Closed({ name: NameSchema });
export type CreateNamespaceBody = Static<typeof CreateNamespaceBodySchema>;
