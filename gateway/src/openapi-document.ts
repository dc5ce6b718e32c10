/**
 * The served OpenAPI document, adjusted where a typed client generated from it (openapi-typescript)
 * would contradict what the document says (docs/decisions.md, H2-14).
 *
 * A request object that declares object-valued fields (a charge's `customer`, `metadata`) and also
 * takes further scalar fields (`additionalProperties`: string, number, boolean or null) becomes, in
 * TypeScript, an index signature that the declared object fields cannot satisfy: the generated type
 * rejected a charge with a `customer`. The gateway keeps validating exactly as before; the document
 * leaves such objects open (JSON Schema's default) and states the rule for further fields in the
 * description and in `x-additional-properties`, so generated types hold the declared fields only.
 */
type Schema = Record<string, unknown> & {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
};

interface Document {
  paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}

/** A schema that may hold an object or an array (null-only schemas, as fastify-swagger writes them, aside). */
function holdsStructure(s: Schema): boolean {
  if (s.enum && (s.enum as unknown[]).every((v) => v === null)) return false;
  if (s.type === 'object' || s.type === 'array' || s.properties || s.items) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].some(holdsStructure);
}

function openConflictingObjects(s: Schema | undefined): void {
  if (!s || typeof s !== 'object') return;
  const extras = s.additionalProperties;
  if (s.properties && extras && typeof extras === 'object' && !holdsStructure(extras)) {
    if (Object.values(s.properties).some(holdsStructure)) {
      delete s.additionalProperties;
      s['x-additional-properties'] = extras;
      s.description = [
        s.description,
        'Other fields are accepted when their values are scalars (x-additional-properties).',
      ]
        .filter(Boolean)
        .join(' ');
    }
  }
  for (const child of [
    ...Object.values(s.properties ?? {}),
    ...(s.items ? [s.items] : []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    ...(s.allOf ?? []),
  ]) {
    openConflictingObjects(child);
  }
}

export function forTypedClients<D extends Document>(served: D): D {
  // A copy: the document's schemas may be the very objects the routes validate with.
  const doc = structuredClone(served);
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      for (const media of Object.values(op.requestBody?.content ?? {})) openConflictingObjects(media.schema);
    }
  }
  return doc;
}
