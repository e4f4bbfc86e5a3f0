/**
 * The admin CLI's posture check flags, read from the type descriptors (src/api/posture-types): one flag per
 * option field a value on the command line can give (true/false, a number, a text), named after the field
 * (`maxIdleMinutes` is `--max-idle-minutes`), and the help listing every type with its flags. A new type's
 * flags and help need nothing here. Fields that are lists or objects are given with --data.
 */
import {
  POSTURE_TYPE_DESCRIPTORS,
  type OptionField,
  type PostureTypeDescriptor,
} from '../api/posture-types/index.js';
import { schemaInWords } from '../api/posture-types/schema-words.js';

export interface CheckOptionFlag {
  flag: string;
  /** the check body's field it sets */
  field: string;
  kind: 'boolean' | 'number' | 'string';
}

const DESCRIPTORS: readonly PostureTypeDescriptor[] = POSTURE_TYPE_DESCRIPTORS;

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function kindOf(field: OptionField): CheckOptionFlag['kind'] | undefined {
  const type = field.schema.type;
  if (type === 'boolean') return 'boolean';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'string') return 'string';
  return undefined;
}

/** Every flag, once per field name (a field several types share is one flag). */
export const CHECK_OPTION_FLAGS: readonly CheckOptionFlag[] = [
  ...new Map(
    DESCRIPTORS.flatMap((d) => d.optionFields).flatMap((f) => {
      const kind = kindOf(f);
      return kind ? [[f.name, { flag: kebab(f.name), field: f.name, kind }] as const] : [];
    }),
  ).values(),
];

/** parseArgs options for the flags. */
export const CHECK_OPTION_PARSE = Object.fromEntries(
  CHECK_OPTION_FLAGS.map((f) => [f.flag, { type: f.kind === 'boolean' ? 'boolean' : 'string' }] as const),
) as Record<string, { type: 'boolean' | 'string' }>;

/**
 * A flag's value for the body: a number flag's text as a number when it reads as one, else as typed (the
 * controller refuses it naming the field, as it would refuse it in --data).
 */
export function checkOptionValue(flag: CheckOptionFlag, raw: string | boolean): unknown {
  if (flag.kind === 'number' && typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim()))
    return Number(raw);
  return raw;
}

function flagLine(field: OptionField): string {
  const kind = kindOf(field);
  const name = kind ? `--${kebab(field.name)}${kind === 'boolean' ? '' : ' V'}` : `"${field.name}" in --data`;
  const need = field.required ? 'required' : 'optional';
  return `      ${name.padEnd(26)} ${field.help} (${schemaInWords(field.schema)}; ${need})`;
}

/** The help's section on posture check types. */
export function postureCheckTypesHelp(): string {
  const types = DESCRIPTORS.map((d) => {
    const head = `  ${d.id.padEnd(16)} ${d.displayName}${d.openZiti ? '' : ' (Postern)'}: ${d.description}`;
    return [head, ...d.optionFields.map(flagLine)].join('\n');
  });
  return `Posture check types (posture-checks create --type T), with their fields:\n${types.join('\n')}`;
}
