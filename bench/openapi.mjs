// The synthetic toolspec spec (bench/synth.mjs) as an OpenAPI 3 document, for peers that generate MCP servers from
// OpenAPI: one operation per tool, POST /<tool name>, operationId = the tool's name, summary and description = its
// description, the request body (application/json, required) = its inputSchema, and a 200 response whose
// application/json schema is its outputSchema when it has one (a plain 200 otherwise). Schemas are copied as they
// are: the synthetic ones use only keywords that OpenAPI 3.0 schema objects share with JSON Schema (type, properties,
// required, additionalProperties, items, enum, default, format, minimum/maximum, minLength/maxLength, maxItems,
// description), so the document is valid OpenAPI 3.0.3.
import fs from 'node:fs';
import path from 'node:path';

const clone = (x) => JSON.parse(JSON.stringify(x));

export function toOpenApi(spec) {
  const paths = {};
  for (const tool of spec.tools) {
    const operation = {
      operationId: tool.name,
      summary: tool.description,
      description: tool.description,
      requestBody: { required: true, content: { 'application/json': { schema: clone(tool.inputSchema) } } },
      responses: {
        200: tool.outputSchema
          ? { description: 'The tool result.', content: { 'application/json': { schema: clone(tool.outputSchema) } } }
          : { description: 'The tool result.' },
      },
    };
    paths[`/${tool.name}`] = { post: operation };
  }
  return {
    openapi: '3.0.3',
    info: { title: spec.server.name, version: spec.server.version },
    servers: [{ url: 'http://127.0.0.1:8080' }],
    paths,
  };
}

/** Writes the OpenAPI document of spec to file (JSON), and returns it. */
export function writeOpenApi(file, spec) {
  const doc = toOpenApi(spec);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(doc, null, 1));
  return doc;
}
