// Validates an OpenAPI document (a file path) with @apidevtools/swagger-parser: the OpenAPI
// schema of its version plus $ref resolution. Exit 0 and "valid" when it passes (run by OpenApiDocumentTest).
import SwaggerParser from "@apidevtools/swagger-parser";

const file = process.argv[2];
try {
  const api = await SwaggerParser.validate(file);
  console.log(`valid: OpenAPI ${api.openapi}, ${Object.keys(api.paths).length} paths`);
} catch (e) {
  console.error(`invalid: ${e.message}`);
  process.exit(1);
}
