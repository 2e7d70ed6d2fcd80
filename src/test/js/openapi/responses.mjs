// Validates live responses against the OpenAPI document's schemas (run by OpenApiDocumentTest):
//   node responses.mjs <document.json> <responses.json>
// responses.json is a list of {name, method, path, status, content_type, body}: the body of a real
// answer of the service, with the path template of its operation. Each body is checked with Ajv
// (JSON Schema 2020-12, the dialect of OpenAPI 3.1 schemas; ajv-formats for date-time, uuid, ...)
// against the schema the document gives that operation's response for that status and media type,
// after swagger-parser resolved every $ref. Prints "ok NAME" or "mismatch NAME: ..." per response
// (a response whose status or media type the document lacks is a mismatch too); exit 1 if any mismatched.
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020.js";
import Ajv04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";

const [documentFile, responsesFile] = process.argv.slice(2);
const api = await SwaggerParser.dereference(documentFile);
const responses = JSON.parse(readFileSync(responsesFile, "utf8"));
const ajv = api.openapi.startsWith("3.1") ? new Ajv2020({ strict: false, allErrors: true })
  : new Ajv04({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's numeric formats say the width, which JSON Schema leaves to the number itself
for (const format of ["int32", "int64", "float", "double"]) {
  ajv.addFormat(format, { type: "number", validate: () => true });
}

let failed = 0;
for (const r of responses) {
  const operation = api.paths[r.path]?.[r.method.toLowerCase()];
  const schema = operation?.responses?.[String(r.status)]?.content?.[r.content_type]?.schema;
  if (!schema) {
    failed++;
    console.log(`mismatch ${r.name}: the document has no ${r.content_type} schema for ${r.method} ${r.path} ${r.status}`);
    continue;
  }
  const validate = ajv.compile(schema);
  if (validate(r.body)) {
    console.log(`ok ${r.name}`);
  } else {
    failed++;
    console.log(`mismatch ${r.name}: ${ajv.errorsText(validate.errors, { dataVar: "body" })}`);
  }
}
console.log(`${responses.length - failed} matched, ${failed} did not`);
process.exit(failed === 0 ? 0 : 1);
