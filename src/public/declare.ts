/**
 * `fw/declare`: model declarations (`schema/<app>/<model.key>.ts`) and the typed result shapes
 * a command may declare as its `output`. Plain data builders; nothing here boots anything.
 */
export { defineModel, f } from '../kernel/declare.js';
export type {
  AccessDecl, AccessOp, BooleanField, CharField, DateTimeField, Domain, DomainTerm, EnumField, FieldDecl, FieldType,
  FloatField, IntegerField, JsonField, ModelDecl, OnDelete, One2ManyField, RecordRule, ReferenceField, TextField, UuidField,
} from '../kernel/declare.js';
export { o } from '../kernel/output.js';
export type { ListShape, ObjectShape, OutputShape, RecordShape, ScalarShape, ShapeOptions, UnionShape } from '../kernel/output.js';
