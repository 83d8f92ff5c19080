var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __name = (target, value) => __defProp(target, "name", { value, configurable: true });
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// ../../../work/main/node_modules/quansync/dist/index.mjs
function isThenable(value) {
  return value && typeof value === "object" && typeof value.then === "function";
}
function isQuansyncGenerator(value) {
  return value && typeof value === "object" && typeof value[Symbol.iterator] === "function" && "__quansync" in value;
}
function fromObject(options) {
  const generator = /* @__PURE__ */ __name(function* (...args) {
    const isAsync = yield GET_IS_ASYNC;
    if (isAsync)
      return yield options.async.apply(this, args);
    return options.sync.apply(this, args);
  }, "generator");
  function fn(...args) {
    const iter = generator.apply(this, args);
    iter.then = (...thenArgs) => options.async.apply(this, args).then(...thenArgs);
    iter.__quansync = true;
    return iter;
  }
  __name(fn, "fn");
  fn.sync = options.sync;
  fn.async = options.async;
  return fn;
}
function fromPromise(promise) {
  return fromObject({
    async: /* @__PURE__ */ __name(() => Promise.resolve(promise), "async"),
    sync: /* @__PURE__ */ __name(() => {
      if (isThenable(promise))
        throw new QuansyncError();
      return promise;
    }, "sync")
  });
}
function unwrapYield(value, isAsync) {
  if (value === GET_IS_ASYNC)
    return isAsync;
  if (isQuansyncGenerator(value))
    return isAsync ? iterateAsync(value) : iterateSync(value);
  if (!isAsync && isThenable(value))
    throw new QuansyncError();
  return value;
}
function iterateSync(generator, onYield = DEFAULT_ON_YIELD) {
  let current = generator.next();
  while (!current.done) {
    try {
      current = generator.next(unwrapYield(onYield(current.value, false)));
    } catch (err) {
      current = generator.throw(err);
    }
  }
  return unwrapYield(current.value);
}
async function iterateAsync(generator, onYield = DEFAULT_ON_YIELD) {
  let current = generator.next();
  while (!current.done) {
    try {
      current = generator.next(await unwrapYield(onYield(current.value, true), true));
    } catch (err) {
      current = generator.throw(err);
    }
  }
  return current.value;
}
function fromGeneratorFn(generatorFn, options) {
  return fromObject({
    name: generatorFn.name,
    async(...args) {
      return iterateAsync(generatorFn.apply(this, args), options?.onYield);
    },
    sync(...args) {
      return iterateSync(generatorFn.apply(this, args), options?.onYield);
    }
  });
}
function quansync(input, options) {
  if (isThenable(input))
    return fromPromise(input);
  if (typeof input === "function")
    return fromGeneratorFn(input, options);
  else
    return fromObject(input);
}
var GET_IS_ASYNC, QuansyncError, DEFAULT_ON_YIELD, getIsAsync;
var init_dist = __esm({
  "../../../work/main/node_modules/quansync/dist/index.mjs"() {
    GET_IS_ASYNC = /* @__PURE__ */ Symbol.for("quansync.getIsAsync");
    QuansyncError = class extends Error {
      static {
        __name(this, "QuansyncError");
      }
      constructor(message2 = "Unexpected promise in sync context") {
        super(message2);
        this.name = "QuansyncError";
      }
    };
    __name(isThenable, "isThenable");
    __name(isQuansyncGenerator, "isQuansyncGenerator");
    __name(fromObject, "fromObject");
    __name(fromPromise, "fromPromise");
    __name(unwrapYield, "unwrapYield");
    DEFAULT_ON_YIELD = /* @__PURE__ */ __name((value) => value, "DEFAULT_ON_YIELD");
    __name(iterateSync, "iterateSync");
    __name(iterateAsync, "iterateAsync");
    __name(fromGeneratorFn, "fromGeneratorFn");
    __name(quansync, "quansync");
    getIsAsync = quansync({
      async: /* @__PURE__ */ __name(() => Promise.resolve(true), "async"),
      sync: /* @__PURE__ */ __name(() => false, "sync")
    });
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/arktype-aI7TBD0R.js
var arktype_aI7TBD0R_exports = {};
__export(arktype_aI7TBD0R_exports, {
  default: () => getToJsonSchemaFn
});
function getToJsonSchemaFn() {
  return (schema, options) => schema.toJsonSchema(options);
}
var init_arktype_aI7TBD0R = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/arktype-aI7TBD0R.js"() {
    __name(getToJsonSchemaFn, "getToJsonSchemaFn");
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/effect-QlVUlMFu.js
var effect_QlVUlMFu_exports = {};
__export(effect_QlVUlMFu_exports, {
  default: () => getToJsonSchemaFn2
});
async function getToJsonSchemaFn2() {
  try {
    const { JSONSchema } = await import("effect");
    return (schema) => JSONSchema.make(schema);
  } catch {
    throw new MissingDependencyError("effect");
  }
}
var init_effect_QlVUlMFu = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/effect-QlVUlMFu.js"() {
    init_index_CLddUTqr();
    __name(getToJsonSchemaFn2, "getToJsonSchemaFn");
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/sury-CWZTCd75.js
var sury_CWZTCd75_exports = {};
__export(sury_CWZTCd75_exports, {
  default: () => getToJsonSchemaFn3
});
async function getToJsonSchemaFn3() {
  try {
    const { toJSONSchema } = await import("sury");
    return toJSONSchema;
  } catch {
    throw new MissingDependencyError("sury");
  }
}
var init_sury_CWZTCd75 = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/sury-CWZTCd75.js"() {
    init_index_CLddUTqr();
    __name(getToJsonSchemaFn3, "getToJsonSchemaFn");
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/typebox-Dei93FPO.js
var typebox_Dei93FPO_exports = {};
__export(typebox_Dei93FPO_exports, {
  default: () => getToJsonSchemaFn4
});
function getToJsonSchemaFn4() {
  return (schema) => JSON.parse(JSON.stringify(schema.Type()));
}
var init_typebox_Dei93FPO = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/typebox-Dei93FPO.js"() {
    __name(getToJsonSchemaFn4, "getToJsonSchemaFn");
  }
});

// ../../../work/main/node_modules/@valibot/to-json-schema/dist/index.mjs
var dist_exports2 = {};
__export(dist_exports2, {
  addGlobalDefs: () => addGlobalDefs,
  getGlobalDefs: () => getGlobalDefs,
  toJsonSchema: () => toJsonSchema,
  toJsonSchemaDefs: () => toJsonSchemaDefs,
  toStandardJsonSchema: () => toStandardJsonSchema
});
function addError(errors, message2) {
  if (errors) {
    errors.push(message2);
    return errors;
  }
  return [message2];
}
function escapeRegExp(string2) {
  return string2.replace(ESCAPE_REGEX, "\\$&");
}
function handleError(message2, config) {
  switch (config?.errorMode) {
    case "ignore":
      break;
    case "warn":
      console.warn(message2);
      break;
    default:
      throw new Error(message2);
  }
}
function isJsonConstValue(value) {
  return typeof value === "boolean" || typeof value === "number" && Number.isFinite(value) || typeof value === "string";
}
function isJsonEnumValues(values) {
  return values.every(isJsonConstValue);
}
function getLowerBound(current, value) {
  if (typeof current !== "number" || !Number.isFinite(current) || value > current) return value;
  return current;
}
function getUpperBound(current, value) {
  if (typeof current !== "number" || !Number.isFinite(current) || value < current) return value;
  return current;
}
// @__NO_SIDE_EFFECTS__
function getNotRestriction(current, value) {
  return current !== void 0 ? { anyOf: [current, value] } : value;
}
function intersectEnum(jsonSchema, values) {
  let enumValues = jsonSchema.enum ?? values;
  if (jsonSchema.enum) {
    const valueSet = new Set(values);
    enumValues = enumValues.filter((value) => valueSet.has(value));
  }
  if (enumValues.length) jsonSchema.enum = [...new Set(enumValues)];
  else {
    delete jsonSchema.enum;
    jsonSchema.not = /* @__PURE__ */ getNotRestriction(jsonSchema.not, {});
  }
}
function convertAction(jsonSchema, valibotAction, config) {
  if (config?.ignoreActions?.includes(valibotAction.type)) return jsonSchema;
  let errors;
  switch (valibotAction.type) {
    case "base64":
      jsonSchema.contentEncoding = "base64";
      break;
    case "bic":
    case "cuid2":
    case "decimal":
    case "digits":
    case "domain":
    case "emoji":
    case "hash":
    case "hexadecimal":
    case "hex_color":
    case "isrc":
    case "iso_time_second":
    case "iso_week":
    case "ksuid":
    case "mac":
    case "mac48":
    case "mac64":
    case "nanoid":
    case "octal":
    case "slug":
    case "ulid":
      if (jsonSchema.pattern) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with another regex action.`);
      else jsonSchema.pattern = valibotAction.requirement.source;
      break;
    case "description":
      jsonSchema.description = valibotAction.description;
      break;
    case "email":
    case "rfc_email":
      jsonSchema.format = "email";
      break;
    case "ends_with":
      if (jsonSchema.pattern) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with another regex action.`);
      else jsonSchema.pattern = `${escapeRegExp(valibotAction.requirement)}$`;
      break;
    case "empty":
      if (jsonSchema.type === "array") jsonSchema.maxItems = 0;
      else {
        if (jsonSchema.type !== "string") errors = addError(errors, `The "${valibotAction.type}" action is not supported on type "${jsonSchema.type}".`);
        jsonSchema.maxLength = 0;
      }
      break;
    case "entries":
      if (!Number.isInteger(valibotAction.requirement) || valibotAction.requirement < 0) {
        errors = addError(errors, 'The requirement of the "entries" action must be a non-negative integer.');
        break;
      }
      jsonSchema.minProperties = getLowerBound(jsonSchema.minProperties, valibotAction.requirement);
      jsonSchema.maxProperties = getUpperBound(jsonSchema.maxProperties, valibotAction.requirement);
      break;
    case "examples":
      if (Array.isArray(jsonSchema.examples)) jsonSchema.examples = [...jsonSchema.examples, ...valibotAction.examples];
      else jsonSchema.examples = valibotAction.examples;
      break;
    case "gt_value":
      if (jsonSchema.type !== "number" && jsonSchema.type !== "integer") {
        errors = addError(errors, `The "gt_value" action is not supported on type "${jsonSchema.type}".`);
        break;
      }
      if (!Number.isFinite(valibotAction.requirement)) {
        errors = addError(errors, 'The requirement of the "gt_value" action is not JSON compatible.');
        break;
      }
      if (config?.target === "openapi-3.0") {
        errors = addError(errors, 'The "gt_value" action is not supported for OpenAPI 3.0.');
        break;
      }
      jsonSchema.exclusiveMinimum = getLowerBound(jsonSchema.exclusiveMinimum, valibotAction.requirement);
      break;
    case "includes":
      if (jsonSchema.pattern) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with another regex action.`);
      else jsonSchema.pattern = escapeRegExp(valibotAction.requirement);
      break;
    case "integer":
      jsonSchema.type = "integer";
      break;
    case "ipv4":
      jsonSchema.format = "ipv4";
      break;
    case "ipv6":
      jsonSchema.format = "ipv6";
      break;
    case "iso_date":
      jsonSchema.format = "date";
      break;
    case "iso_date_time":
    case "iso_timestamp":
      jsonSchema.format = "date-time";
      break;
    case "iso_time":
      jsonSchema.format = "time";
      break;
    case "jws_compact":
      if (jsonSchema.pattern) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with another regex action.`);
      else jsonSchema.pattern = valibotAction.requirement.source;
      break;
    case "length":
      if (!Number.isInteger(valibotAction.requirement) || valibotAction.requirement < 0) {
        errors = addError(errors, 'The requirement of the "length" action must be a non-negative integer.');
        break;
      }
      if (jsonSchema.type === "array") {
        jsonSchema.minItems = getLowerBound(jsonSchema.minItems, valibotAction.requirement);
        jsonSchema.maxItems = getUpperBound(jsonSchema.maxItems, valibotAction.requirement);
      } else {
        if (jsonSchema.type !== "string") errors = addError(errors, `The "${valibotAction.type}" action is not supported on type "${jsonSchema.type}".`);
        jsonSchema.minLength = getLowerBound(jsonSchema.minLength, valibotAction.requirement);
        jsonSchema.maxLength = getUpperBound(jsonSchema.maxLength, valibotAction.requirement);
      }
      break;
    case "lt_value":
      if (jsonSchema.type !== "number" && jsonSchema.type !== "integer") {
        errors = addError(errors, `The "lt_value" action is not supported on type "${jsonSchema.type}".`);
        break;
      }
      if (!Number.isFinite(valibotAction.requirement)) {
        errors = addError(errors, 'The requirement of the "lt_value" action is not JSON compatible.');
        break;
      }
      if (config?.target === "openapi-3.0") {
        errors = addError(errors, 'The "lt_value" action is not supported for OpenAPI 3.0.');
        break;
      }
      jsonSchema.exclusiveMaximum = getUpperBound(jsonSchema.exclusiveMaximum, valibotAction.requirement);
      break;
    case "max_entries":
      if (!Number.isInteger(valibotAction.requirement) || valibotAction.requirement < 0) {
        errors = addError(errors, 'The requirement of the "max_entries" action must be a non-negative integer.');
        break;
      }
      jsonSchema.maxProperties = getUpperBound(jsonSchema.maxProperties, valibotAction.requirement);
      break;
    case "max_length":
      if (!Number.isInteger(valibotAction.requirement) || valibotAction.requirement < 0) {
        errors = addError(errors, 'The requirement of the "max_length" action must be a non-negative integer.');
        break;
      }
      if (jsonSchema.type === "array") jsonSchema.maxItems = getUpperBound(jsonSchema.maxItems, valibotAction.requirement);
      else {
        if (jsonSchema.type !== "string") errors = addError(errors, `The "${valibotAction.type}" action is not supported on type "${jsonSchema.type}".`);
        jsonSchema.maxLength = getUpperBound(jsonSchema.maxLength, valibotAction.requirement);
      }
      break;
    case "max_value":
      if (jsonSchema.type !== "number" && jsonSchema.type !== "integer") {
        errors = addError(errors, `The "max_value" action is not supported on type "${jsonSchema.type}".`);
        break;
      }
      if (!Number.isFinite(valibotAction.requirement)) {
        errors = addError(errors, 'The requirement of the "max_value" action is not JSON compatible.');
        break;
      }
      jsonSchema.maximum = getUpperBound(jsonSchema.maximum, valibotAction.requirement);
      break;
    case "metadata":
      if (typeof valibotAction.metadata.title === "string") jsonSchema.title = valibotAction.metadata.title;
      if (typeof valibotAction.metadata.description === "string") jsonSchema.description = valibotAction.metadata.description;
      if (Array.isArray(valibotAction.metadata.examples)) if (Array.isArray(jsonSchema.examples)) jsonSchema.examples = [...jsonSchema.examples, ...valibotAction.metadata.examples];
      else jsonSchema.examples = valibotAction.metadata.examples;
      for (const key of Object.keys(valibotAction.metadata)) if (key !== "title" && key !== "description" && key !== "examples" && key !== "__proto__") jsonSchema[key] = valibotAction.metadata[key];
      break;
    case "min_entries":
      if (!Number.isInteger(valibotAction.requirement) || valibotAction.requirement < 0) {
        errors = addError(errors, 'The requirement of the "min_entries" action must be a non-negative integer.');
        break;
      }
      jsonSchema.minProperties = getLowerBound(jsonSchema.minProperties, valibotAction.requirement);
      break;
    case "min_length":
      if (!Number.isInteger(valibotAction.requirement) || valibotAction.requirement < 0) {
        errors = addError(errors, 'The requirement of the "min_length" action must be a non-negative integer.');
        break;
      }
      if (jsonSchema.type === "array") jsonSchema.minItems = getLowerBound(jsonSchema.minItems, valibotAction.requirement);
      else {
        if (jsonSchema.type !== "string") errors = addError(errors, `The "${valibotAction.type}" action is not supported on type "${jsonSchema.type}".`);
        jsonSchema.minLength = getLowerBound(jsonSchema.minLength, valibotAction.requirement);
      }
      break;
    case "min_value":
      if (jsonSchema.type !== "number" && jsonSchema.type !== "integer") {
        errors = addError(errors, `The "min_value" action is not supported on type "${jsonSchema.type}".`);
        break;
      }
      if (!Number.isFinite(valibotAction.requirement)) {
        errors = addError(errors, 'The requirement of the "min_value" action is not JSON compatible.');
        break;
      }
      jsonSchema.minimum = getLowerBound(jsonSchema.minimum, valibotAction.requirement);
      break;
    case "multiple_of":
      jsonSchema.multipleOf = valibotAction.requirement;
      break;
    case "non_empty":
      if (jsonSchema.type === "array") jsonSchema.minItems = getLowerBound(jsonSchema.minItems, 1);
      else {
        if (jsonSchema.type !== "string") errors = addError(errors, `The "${valibotAction.type}" action is not supported on type "${jsonSchema.type}".`);
        jsonSchema.minLength = getLowerBound(jsonSchema.minLength, 1);
      }
      break;
    case "not_value":
      if (!isJsonConstValue(valibotAction.requirement)) {
        errors = addError(errors, 'The requirement of the "not_value" action is not JSON compatible.');
        break;
      }
      jsonSchema.not = /* @__PURE__ */ getNotRestriction(jsonSchema.not, config?.target === "openapi-3.0" ? { enum: [valibotAction.requirement] } : { const: valibotAction.requirement });
      break;
    case "not_values":
      if (!isJsonEnumValues(valibotAction.requirement)) {
        errors = addError(errors, 'A requirement of the "not_values" action is not JSON compatible.');
        break;
      }
      if (valibotAction.requirement.length) jsonSchema.not = /* @__PURE__ */ getNotRestriction(jsonSchema.not, { enum: [...new Set(valibotAction.requirement)] });
      break;
    case "regex":
      if (valibotAction.requirement.flags) errors = addError(errors, "RegExp flags are not supported by JSON Schema.");
      if (jsonSchema.pattern) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with another regex action.`);
      else jsonSchema.pattern = valibotAction.requirement.source;
      break;
    case "safe_integer":
      jsonSchema.type = "integer";
      jsonSchema.minimum = getLowerBound(jsonSchema.minimum, Number.MIN_SAFE_INTEGER);
      jsonSchema.maximum = getUpperBound(jsonSchema.maximum, Number.MAX_SAFE_INTEGER);
      break;
    case "starts_with":
      if (jsonSchema.pattern) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with another regex action.`);
      else jsonSchema.pattern = `^${escapeRegExp(valibotAction.requirement)}`;
      break;
    case "title":
      jsonSchema.title = valibotAction.title;
      break;
    case "url":
      jsonSchema.format = "uri";
      break;
    case "uuid":
      jsonSchema.format = "uuid";
      break;
    case "value":
      if (!isJsonConstValue(valibotAction.requirement)) {
        errors = addError(errors, 'The requirement of the "value" action is not JSON compatible.');
        break;
      }
      if (config?.target === "openapi-3.0") intersectEnum(jsonSchema, [valibotAction.requirement]);
      else if ("const" in jsonSchema && jsonSchema.const !== valibotAction.requirement) errors = addError(errors, `The "${valibotAction.type}" action is not supported in combination with a different "const" restriction.`);
      else jsonSchema.const = valibotAction.requirement;
      break;
    case "values":
      if (!isJsonEnumValues(valibotAction.requirement)) {
        errors = addError(errors, 'A requirement of the "values" action is not JSON compatible.');
        break;
      }
      intersectEnum(jsonSchema, valibotAction.requirement);
      break;
    default:
      errors = addError(errors, `The "${valibotAction.type}" action cannot be converted to JSON Schema.`);
  }
  if (config?.overrideAction) {
    const actionOverride = config.overrideAction({
      valibotAction,
      jsonSchema,
      errors
    });
    if (actionOverride) return { ...actionOverride };
  }
  if (errors) for (const message2 of errors) handleError(message2, config);
  return jsonSchema;
}
function flattenPipe(pipe2) {
  return pipe2.flatMap((item) => "pipe" in item ? flattenPipe(item.pipe) : item);
}
function getDefinitionRef(referenceId) {
  return `#/$defs/${referenceId.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}
function convertSchema(jsonSchema, valibotSchema, config, context, skipRef = false) {
  if (!skipRef) {
    const referenceId = context.referenceMap.get(valibotSchema);
    if (referenceId) {
      jsonSchema.$ref = getDefinitionRef(referenceId);
      if (config?.overrideRef) {
        const refOverride = config.overrideRef({
          ...context,
          referenceId,
          valibotSchema,
          jsonSchema
        });
        if (refOverride) jsonSchema.$ref = refOverride;
      }
      return jsonSchema;
    }
  }
  if ("pipe" in valibotSchema) {
    const flatPipe = flattenPipe(valibotSchema.pipe);
    let startIndex = 0;
    let stopIndex = flatPipe.length - 1;
    if (config?.typeMode === "input") {
      const inputStopIndex = flatPipe.slice(1).findIndex((item) => item.kind === "schema" || item.kind === "transformation" && (item.type === "find_item" || item.type === "parse_json" || item.type === "raw_transform" || item.type === "reduce_items" || item.type === "stringify_json" || item.type === "to_bigint" || item.type === "to_boolean" || item.type === "to_date" || item.type === "to_number" || item.type === "to_string" || item.type === "transform"));
      if (inputStopIndex !== -1) stopIndex = inputStopIndex;
    } else if (config?.typeMode === "output") {
      const outputStartIndex = flatPipe.findLastIndex((item) => item.kind === "schema");
      if (outputStartIndex !== -1) startIndex = outputStartIndex;
    }
    for (let index = startIndex; index <= stopIndex; index++) {
      const valibotPipeItem = flatPipe[index];
      if (valibotPipeItem.kind === "schema") {
        if (index > startIndex) handleError('Set the "typeMode" config to "input" or "output" to convert pipelines with multiple schemas.', config);
        jsonSchema = convertSchema(jsonSchema, valibotPipeItem, config, context, true);
      } else jsonSchema = convertAction(jsonSchema, valibotPipeItem, config);
    }
    return jsonSchema;
  }
  let errors;
  switch (valibotSchema.type) {
    case "boolean":
      jsonSchema.type = "boolean";
      break;
    case "null":
      if (config?.target === "openapi-3.0") jsonSchema.enum = [null];
      else jsonSchema.type = "null";
      break;
    case "number":
      jsonSchema.type = "number";
      break;
    case "string":
      jsonSchema.type = "string";
      break;
    case "array":
      jsonSchema.type = "array";
      jsonSchema.items = convertSchema({}, valibotSchema.item, config, context);
      break;
    case "tuple":
    case "tuple_with_rest":
    case "loose_tuple":
    case "strict_tuple":
      jsonSchema.type = "array";
      if (config?.target === "openapi-3.0") {
        jsonSchema.items = { anyOf: [] };
        jsonSchema.minItems = valibotSchema.items.length;
        for (const item of valibotSchema.items) jsonSchema.items.anyOf.push(convertSchema({}, item, config, context));
        if (valibotSchema.type === "tuple_with_rest") jsonSchema.items.anyOf.push(convertSchema({}, valibotSchema.rest, config, context));
        else if (valibotSchema.type === "strict_tuple" || valibotSchema.type === "tuple") jsonSchema.maxItems = valibotSchema.items.length;
      } else if (config?.target === "draft-2020-12") {
        jsonSchema.prefixItems = [];
        jsonSchema.minItems = valibotSchema.items.length;
        for (const item of valibotSchema.items) jsonSchema.prefixItems.push(convertSchema({}, item, config, context));
        if (valibotSchema.type === "tuple_with_rest") jsonSchema.items = convertSchema({}, valibotSchema.rest, config, context);
        else if (valibotSchema.type === "strict_tuple") jsonSchema.items = false;
      } else {
        jsonSchema.items = [];
        jsonSchema.minItems = valibotSchema.items.length;
        for (const item of valibotSchema.items) jsonSchema.items.push(convertSchema({}, item, config, context));
        if (valibotSchema.type === "tuple_with_rest") jsonSchema.additionalItems = convertSchema({}, valibotSchema.rest, config, context);
        else if (valibotSchema.type === "strict_tuple") jsonSchema.additionalItems = false;
      }
      break;
    case "object":
    case "object_with_rest":
    case "loose_object":
    case "strict_object":
      jsonSchema.type = "object";
      jsonSchema.properties = {};
      jsonSchema.required = [];
      for (const key in valibotSchema.entries) {
        const entry = valibotSchema.entries[key];
        jsonSchema.properties[key] = convertSchema({}, entry, config, context);
        if (entry.type !== "exact_optional" && entry.type !== "nullish" && entry.type !== "optional") jsonSchema.required.push(key);
      }
      if (valibotSchema.type === "object_with_rest") jsonSchema.additionalProperties = convertSchema({}, valibotSchema.rest, config, context);
      else if (valibotSchema.type === "strict_object") jsonSchema.additionalProperties = false;
      break;
    case "record":
      if (config?.target === "openapi-3.0" && "pipe" in valibotSchema.key) errors = addError(errors, 'The "record" schema with a schema for the key that contains a "pipe" cannot be converted to JSON Schema.');
      if (valibotSchema.key.type !== "string") errors = addError(errors, `The "record" schema with the "${valibotSchema.key.type}" schema for the key cannot be converted to JSON Schema.`);
      jsonSchema.type = "object";
      if (config?.target !== "openapi-3.0") jsonSchema.propertyNames = convertSchema({}, valibotSchema.key, config, context);
      jsonSchema.additionalProperties = convertSchema({}, valibotSchema.value, config, context);
      break;
    case "any":
    case "unknown":
      break;
    case "never":
      jsonSchema.not = {};
      break;
    case "nullable":
    case "nullish":
      if (config?.target === "openapi-3.0") {
        const innerSchema = convertSchema({}, valibotSchema.wrapped, config, context);
        Object.assign(jsonSchema, innerSchema);
        jsonSchema.nullable = true;
      } else jsonSchema.anyOf = [convertSchema({}, valibotSchema.wrapped, config, context), { type: "null" }];
      if (valibotSchema.default !== void 0) jsonSchema.default = typeof valibotSchema.default === "function" ? valibotSchema.default() : valibotSchema.default;
      break;
    case "exact_optional":
    case "optional":
    case "undefinedable":
      jsonSchema = convertSchema(jsonSchema, valibotSchema.wrapped, config, context);
      if (valibotSchema.default !== void 0) jsonSchema.default = typeof valibotSchema.default === "function" ? valibotSchema.default() : valibotSchema.default;
      break;
    case "literal":
      if (!isJsonConstValue(valibotSchema.literal)) {
        errors = addError(errors, 'The value of the "literal" schema is not JSON compatible.');
        break;
      }
      if (config?.target === "openapi-3.0") jsonSchema.enum = [valibotSchema.literal];
      else jsonSchema.const = valibotSchema.literal;
      break;
    case "enum":
    case "picklist": {
      const options = valibotSchema.options;
      if (!options.every((option) => typeof option === "string" || typeof option === "number" && Number.isFinite(option))) {
        errors = addError(errors, `An option of the "${valibotSchema.type}" schema is not JSON compatible.`);
        break;
      }
      jsonSchema.enum = options;
      if (options.every((option) => typeof option === "string")) jsonSchema.type = "string";
      else if (options.every((option) => typeof option === "number")) jsonSchema.type = "number";
      else if (config?.target !== "openapi-3.0") jsonSchema.type = ["string", "number"];
      break;
    }
    case "union":
      jsonSchema.anyOf = valibotSchema.options.map((option) => convertSchema({}, option, config, context));
      break;
    case "variant":
      jsonSchema.oneOf = valibotSchema.options.map((option) => convertSchema({}, option, config, context));
      break;
    case "intersect":
      jsonSchema.allOf = valibotSchema.options.map((option) => convertSchema({}, option, config, context));
      break;
    case "lazy": {
      let wrappedValibotSchema = context.getterMap.get(valibotSchema.getter);
      if (!wrappedValibotSchema) {
        wrappedValibotSchema = valibotSchema.getter(void 0);
        context.getterMap.set(valibotSchema.getter, wrappedValibotSchema);
      }
      let referenceId = context.referenceMap.get(wrappedValibotSchema);
      if (!referenceId) {
        referenceId = context.referenceMap.createId(context.definitions);
        context.referenceMap.set(wrappedValibotSchema, referenceId);
        context.definitions[referenceId] = convertSchema({}, wrappedValibotSchema, config, context, true);
      }
      jsonSchema.$ref = getDefinitionRef(referenceId);
      if (config?.overrideRef) {
        const refOverride = config.overrideRef({
          ...context,
          referenceId,
          valibotSchema: wrappedValibotSchema,
          jsonSchema
        });
        if (refOverride) jsonSchema.$ref = refOverride;
      }
      break;
    }
    default:
      errors = addError(errors, `The "${valibotSchema.type}" schema cannot be converted to JSON Schema.`);
  }
  if (config?.overrideSchema) {
    const schemaOverride = config.overrideSchema({
      ...context,
      referenceId: context.referenceMap.get(valibotSchema),
      valibotSchema,
      jsonSchema,
      errors
    });
    if (schemaOverride) return { ...schemaOverride };
  }
  if (errors) for (const message2 of errors) handleError(message2, config);
  return jsonSchema;
}
function addGlobalDefs(definitions) {
  store = {
    ...store ?? {},
    ...definitions
  };
}
function getGlobalDefs() {
  return store;
}
function toJsonSchema(schema, config) {
  const context = {
    definitions: {},
    referenceMap: new ReferenceMap(),
    getterMap: /* @__PURE__ */ new Map()
  };
  const definitions = config?.definitions ?? getGlobalDefs();
  if (definitions) {
    for (const key in definitions) context.referenceMap.set(definitions[key], key);
    for (const key in definitions) context.definitions[key] = convertSchema({}, definitions[key], config, context, true);
  }
  const jsonSchema = convertSchema({}, schema, config, context);
  const target = config?.target ?? "draft-07";
  if (target === "draft-2020-12") jsonSchema.$schema = "https://json-schema.org/draft/2020-12/schema";
  else if (target === "draft-07") jsonSchema.$schema = "http://json-schema.org/draft-07/schema#";
  if (context.referenceMap.size) jsonSchema.$defs = context.definitions;
  return jsonSchema;
}
function toJsonSchemaDefs(definitions, config) {
  const context = {
    definitions: {},
    referenceMap: new ReferenceMap(),
    getterMap: /* @__PURE__ */ new Map()
  };
  for (const key in definitions) context.referenceMap.set(definitions[key], key);
  for (const key in definitions) context.definitions[key] = convertSchema({}, definitions[key], config, context, true);
  return context.definitions;
}
function toStandardJsonSchema(schema) {
  return { "~standard": {
    ...schema["~standard"],
    jsonSchema: {
      input(options) {
        if (SUPPORTED_TARGETS.includes(options.target)) return toJsonSchema(schema, {
          typeMode: "input",
          target: options.target,
          ...options.libraryOptions
        });
        throw new Error(`Unsupported target: ${options.target}`);
      },
      output(options) {
        if (SUPPORTED_TARGETS.includes(options.target)) return toJsonSchema(schema, {
          typeMode: "output",
          target: options.target,
          ...options.libraryOptions
        });
        throw new Error(`Unsupported target: ${options.target}`);
      }
    }
  } };
}
var ESCAPE_REGEX, ReferenceMap, store, SUPPORTED_TARGETS;
var init_dist2 = __esm({
  "../../../work/main/node_modules/@valibot/to-json-schema/dist/index.mjs"() {
    __name(addError, "addError");
    ESCAPE_REGEX = /[.*+?^${}()|[\]\\]/g;
    __name(escapeRegExp, "escapeRegExp");
    __name(handleError, "handleError");
    __name(isJsonConstValue, "isJsonConstValue");
    __name(isJsonEnumValues, "isJsonEnumValues");
    ReferenceMap = class extends Map {
      static {
        __name(this, "ReferenceMap");
      }
      /**
      * Creates an empty schema reference map.
      */
      constructor() {
        super();
        this.count = 0;
        this.usedIds = /* @__PURE__ */ new Set();
      }
      /**
      * Adds a schema reference and reserves its ID.
      *
      * @param schema The Valibot schema.
      * @param referenceId The reference ID.
      *
      * @returns The reference map.
      */
      set(schema, referenceId) {
        this.usedIds.add(referenceId);
        return super.set(schema, referenceId);
      }
      /**
      * Creates a reference ID that is not yet used.
      *
      * @param definitions The JSON Schema definitions.
      *
      * @returns The unused reference ID.
      */
      createId(definitions) {
        while (this.usedIds.has(`${this.count}`) || `${this.count}` in definitions) this.count++;
        return `${this.count++}`;
      }
    };
    __name(getLowerBound, "getLowerBound");
    __name(getUpperBound, "getUpperBound");
    __name(getNotRestriction, "getNotRestriction");
    __name(intersectEnum, "intersectEnum");
    __name(convertAction, "convertAction");
    __name(flattenPipe, "flattenPipe");
    __name(getDefinitionRef, "getDefinitionRef");
    __name(convertSchema, "convertSchema");
    __name(addGlobalDefs, "addGlobalDefs");
    __name(getGlobalDefs, "getGlobalDefs");
    __name(toJsonSchema, "toJsonSchema");
    __name(toJsonSchemaDefs, "toJsonSchemaDefs");
    SUPPORTED_TARGETS = [
      "draft-07",
      "draft-2020-12",
      "openapi-3.0"
    ];
    __name(toStandardJsonSchema, "toStandardJsonSchema");
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/valibot--1zFm7rT.js
var valibot_1zFm7rT_exports = {};
__export(valibot_1zFm7rT_exports, {
  default: () => getToJsonSchemaFn5
});
async function getToJsonSchemaFn5() {
  try {
    const { toJsonSchema: toJsonSchema3 } = await Promise.resolve().then(() => (init_dist2(), dist_exports2));
    return toJsonSchema3;
  } catch {
    throw new MissingDependencyError("@valibot/to-json-schema");
  }
}
var init_valibot_1zFm7rT = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/valibot--1zFm7rT.js"() {
    init_index_CLddUTqr();
    __name(getToJsonSchemaFn5, "getToJsonSchemaFn");
  }
});

// src/build/unused-schema-vendor.ts
var unused_schema_vendor_exports = {};
var init_unused_schema_vendor = __esm({
  "src/build/unused-schema-vendor.ts"() {
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/zod-Bwrt9trS.js
var zod_Bwrt9trS_exports = {};
__export(zod_Bwrt9trS_exports, {
  default: () => getToJsonSchemaFn6
});
async function getToJsonSchemaFn6() {
  return async (schema, options) => {
    let handler;
    if ("_zod" in schema) {
      try {
        const mod = await Promise.resolve().then(() => (init_unused_schema_vendor(), unused_schema_vendor_exports));
        handler = mod.toJSONSchema;
      } catch {
        throw zodv4Error;
      }
    } else {
      try {
        const mod = await import("zod-to-json-schema");
        handler = mod.zodToJsonSchema;
      } catch {
        throw new MissingDependencyError("zod-to-json-schema");
      }
    }
    return handler(schema, options);
  };
}
var zodv4Error;
var init_zod_Bwrt9trS = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/zod-Bwrt9trS.js"() {
    init_index_CLddUTqr();
    zodv4Error = new MissingDependencyError("zod v4");
    __name(getToJsonSchemaFn6, "getToJsonSchemaFn");
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/index-CLddUTqr.js
var validationMapper, UnsupportedVendorError, MissingDependencyError, getToJsonSchemaFn7, toJsonSchema2;
var init_index_CLddUTqr = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/index-CLddUTqr.js"() {
    init_dist();
    validationMapper = /* @__PURE__ */ new Map();
    UnsupportedVendorError = class extends Error {
      static {
        __name(this, "UnsupportedVendorError");
      }
      constructor(vendor) {
        super(`standard-json: Unsupported schema vendor "${vendor}".`);
      }
    };
    MissingDependencyError = class extends Error {
      static {
        __name(this, "MissingDependencyError");
      }
      constructor(packageName) {
        super(`standard-json: Missing dependencies "${packageName}".`);
      }
    };
    getToJsonSchemaFn7 = /* @__PURE__ */ __name(async (vendor) => {
      const cached = validationMapper.get(vendor);
      if (cached) {
        return cached;
      }
      let vendorFnPromise;
      switch (vendor) {
        case "arktype":
          vendorFnPromise = (await Promise.resolve().then(() => (init_arktype_aI7TBD0R(), arktype_aI7TBD0R_exports))).default();
          break;
        case "effect":
          vendorFnPromise = (await Promise.resolve().then(() => (init_effect_QlVUlMFu(), effect_QlVUlMFu_exports))).default();
          break;
        case "sury":
          vendorFnPromise = (await Promise.resolve().then(() => (init_sury_CWZTCd75(), sury_CWZTCd75_exports))).default();
          break;
        case "typebox":
          vendorFnPromise = (await Promise.resolve().then(() => (init_typebox_Dei93FPO(), typebox_Dei93FPO_exports))).default();
          break;
        case "valibot":
          vendorFnPromise = (await Promise.resolve().then(() => (init_valibot_1zFm7rT(), valibot_1zFm7rT_exports))).default();
          break;
        case "zod":
          vendorFnPromise = (await Promise.resolve().then(() => (init_zod_Bwrt9trS(), zod_Bwrt9trS_exports))).default();
          break;
        default:
          throw new UnsupportedVendorError(vendor);
      }
      const vendorFn = await vendorFnPromise;
      validationMapper.set(vendor, vendorFn);
      return vendorFn;
    }, "getToJsonSchemaFn");
    toJsonSchema2 = quansync({
      sync: /* @__PURE__ */ __name((schema, options) => {
        const vendor = schema["~standard"].vendor;
        const fn = validationMapper.get(vendor);
        if (!fn) {
          throw new UnsupportedVendorError(vendor);
        }
        return fn(schema, options);
      }, "sync"),
      async: /* @__PURE__ */ __name(async (schema, options) => {
        const fn = await getToJsonSchemaFn7(schema["~standard"].vendor);
        return fn(schema, options);
      }, "async")
    });
  }
});

// ../../../work/main/node_modules/@standard-community/standard-json/dist/index.js
var init_dist3 = __esm({
  "../../../work/main/node_modules/@standard-community/standard-json/dist/index.js"() {
    init_index_CLddUTqr();
  }
});

// ../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/vendors/convert.js
function convertToOpenAPISchema(jsonSchema, context) {
  const _jsonSchema = JSON.parse(JSON.stringify(jsonSchema));
  if ("nullable" in _jsonSchema && _jsonSchema.nullable === true) {
    if (_jsonSchema.type) {
      if (Array.isArray(_jsonSchema.type)) {
        if (!_jsonSchema.type.includes("null")) {
          _jsonSchema.type.push("null");
        }
      } else {
        _jsonSchema.type = [_jsonSchema.type, "null"];
      }
    } else {
      _jsonSchema.type = ["null"];
    }
    delete _jsonSchema.nullable;
  }
  if (_jsonSchema.$schema) {
    delete _jsonSchema.$schema;
  }
  const nestedSchemaKeys = [
    "properties",
    "additionalProperties",
    "items",
    "additionalItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "definitions",
    "$defs",
    "patternProperties",
    "propertyNames",
    "contains"
    // "unevaluatedProperties",
    // "unevaluatedItems",
  ];
  nestedSchemaKeys.forEach((key) => {
    if (_jsonSchema[key] && (typeof _jsonSchema[key] === "object" || Array.isArray(_jsonSchema[key]))) {
      if (key === "properties" || key === "definitions" || key === "$defs" || key === "patternProperties") {
        for (const subKey in _jsonSchema[key]) {
          _jsonSchema[key][subKey] = convertToOpenAPISchema(
            _jsonSchema[key][subKey],
            context
          );
        }
      } else if (key === "allOf" || key === "anyOf" || key === "oneOf") {
        _jsonSchema[key] = _jsonSchema[key].map(
          (item) => convertToOpenAPISchema(item, context)
        );
      } else if (key === "items") {
        if (Array.isArray(_jsonSchema[key])) {
          _jsonSchema[key] = _jsonSchema[key].map(
            (item) => convertToOpenAPISchema(item, context)
          );
        } else {
          _jsonSchema[key] = convertToOpenAPISchema(_jsonSchema[key], context);
        }
      } else {
        _jsonSchema[key] = convertToOpenAPISchema(_jsonSchema[key], context);
      }
    }
  });
  if (_jsonSchema.$defs || _jsonSchema.definitions) {
    context.components.schemas = {
      ..._jsonSchema.definitions,
      ..._jsonSchema.$defs,
      ...context.components.schemas
    };
    delete _jsonSchema.$defs;
    delete _jsonSchema.definitions;
  }
  if (_jsonSchema.ref || _jsonSchema.$id) {
    const { ref, $id, ...component } = _jsonSchema;
    const id = ref || $id;
    context.components.schemas = {
      ...context.components.schemas,
      [id]: component
    };
    return {
      $ref: `#/components/schemas/${id}`
    };
  } else if (_jsonSchema.$ref) {
    const { $ref, ...rest } = _jsonSchema;
    const lowerRef = $ref.toLowerCase();
    if (lowerRef.startsWith("http://") || lowerRef.startsWith("https://") || $ref.startsWith("//")) {
      return { ...rest, $ref };
    }
    const ref = $ref.split("/").pop();
    return {
      $ref: `#/components/schemas/${ref}`
    };
  }
  return _jsonSchema;
}
var init_convert = __esm({
  "../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/vendors/convert.js"() {
    __name(convertToOpenAPISchema, "convertToOpenAPISchema");
  }
});

// ../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/valibot-D_HTw1Gn.js
var valibot_D_HTw1Gn_exports = {};
__export(valibot_D_HTw1Gn_exports, {
  default: () => getToOpenAPISchemaFn
});
function getToOpenAPISchemaFn() {
  return async (schema, context) => {
    const openapiSchema = await toJsonSchema2(schema, {
      errorMode: "ignore",
      // @ts-expect-error
      overrideAction: /* @__PURE__ */ __name(({ valibotAction, jsonSchema }) => {
        const _jsonSchema = convertToOpenAPISchema(jsonSchema, context);
        if (valibotAction.kind === "metadata" && valibotAction.type === "metadata" && !("$ref" in _jsonSchema)) {
          const metadata2 = valibotAction.metadata;
          if (metadata2.example !== void 0) {
            _jsonSchema.example = metadata2.example;
          }
          if (metadata2.examples && metadata2.examples.length > 0) {
            _jsonSchema.examples = metadata2.examples;
          }
          if (metadata2.ref) {
            context.components.schemas = {
              ...context.components.schemas,
              [metadata2.ref]: _jsonSchema
            };
            return {
              $ref: `#/components/schemas/${metadata2.ref}`
            };
          }
        }
        return _jsonSchema;
      }, "overrideAction"),
      ...context.options
    });
    if ("$schema" in openapiSchema) {
      delete openapiSchema.$schema;
    }
    return openapiSchema;
  };
}
var init_valibot_D_HTw1Gn = __esm({
  "../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/valibot-D_HTw1Gn.js"() {
    init_dist3();
    init_convert();
    __name(getToOpenAPISchemaFn, "getToOpenAPISchemaFn");
  }
});

// ../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/default-u_dwuiYb.js
var default_u_dwuiYb_exports = {};
__export(default_u_dwuiYb_exports, {
  default: () => getToOpenAPISchemaFn2
});
function getToOpenAPISchemaFn2() {
  return async (schema, context) => convertToOpenAPISchema(
    await toJsonSchema2(schema, context.options),
    context
  );
}
var init_default_u_dwuiYb = __esm({
  "../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/default-u_dwuiYb.js"() {
    init_dist3();
    init_convert();
    __name(getToOpenAPISchemaFn2, "getToOpenAPISchemaFn");
  }
});

// ../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/zod-DSgpEGAE.js
var zod_DSgpEGAE_exports = {};
__export(zod_DSgpEGAE_exports, {
  default: () => getToOpenAPISchemaFn3
});
function getToOpenAPISchemaFn3() {
  return async (schema, context) => {
    if ("_zod" in schema) {
      return getToOpenAPISchemaFn2()(schema, {
        components: context.components,
        options: { io: "input", ...context.options }
      });
    }
    try {
      const { createSchema } = await import("zod-openapi");
      const { schema: _schema, components } = createSchema(
        // @ts-expect-error
        schema,
        { schemaType: "input", ...context.options }
      );
      if (components) {
        context.components.schemas = {
          ...context.components.schemas,
          ...components
        };
      }
      return _schema;
    } catch {
      throw new Error(
        errorMessageWrapper(`Missing dependencies "zod-openapi v4".`)
      );
    }
  };
}
var init_zod_DSgpEGAE = __esm({
  "../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/zod-DSgpEGAE.js"() {
    init_default_u_dwuiYb();
    init_index_DZEfthgZ();
    init_dist3();
    init_convert();
    __name(getToOpenAPISchemaFn3, "getToOpenAPISchemaFn");
  }
});

// ../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/index-DZEfthgZ.js
var errorMessageWrapper, openapiVendorMap, getToOpenAPISchemaFn4, toOpenAPISchema;
var init_index_DZEfthgZ = __esm({
  "../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/index-DZEfthgZ.js"() {
    errorMessageWrapper = /* @__PURE__ */ __name((message2) => `standard-openapi: ${message2}`, "errorMessageWrapper");
    openapiVendorMap = /* @__PURE__ */ new Map();
    getToOpenAPISchemaFn4 = /* @__PURE__ */ __name(async (vendor) => {
      const cached = openapiVendorMap.get(vendor);
      if (cached) {
        return cached;
      }
      let vendorFn;
      switch (vendor) {
        case "valibot":
          vendorFn = (await Promise.resolve().then(() => (init_valibot_D_HTw1Gn(), valibot_D_HTw1Gn_exports))).default();
          break;
        case "zod":
          vendorFn = (await Promise.resolve().then(() => (init_zod_DSgpEGAE(), zod_DSgpEGAE_exports))).default();
          break;
        default:
          vendorFn = (await Promise.resolve().then(() => (init_default_u_dwuiYb(), default_u_dwuiYb_exports))).default();
      }
      openapiVendorMap.set(vendor, vendorFn);
      return vendorFn;
    }, "getToOpenAPISchemaFn");
    toOpenAPISchema = /* @__PURE__ */ __name(async (schema, context = {}) => {
      const fn = await getToOpenAPISchemaFn4(schema["~standard"].vendor);
      const { components = {}, options } = context;
      const _schema = await fn(schema, { components, options });
      return {
        schema: _schema,
        components: Object.keys(components).length > 0 ? components : void 0
      };
    }, "toOpenAPISchema");
  }
});

// ../../../work/main/node_modules/hono/dist/http-exception.js
var HTTPException = class extends Error {
  static {
    __name(this, "HTTPException");
  }
  res;
  status;
  /**
  * Creates an instance of `HTTPException`.
  * @param status - HTTP status code for the exception. Defaults to 500.
  * @param options - Additional options for the exception.
  */
  constructor(status = 500, options) {
    super(options?.message, { cause: options?.cause });
    this.res = options?.res;
    this.status = status;
  }
  /**
  * Returns the response object associated with the exception.
  * If a response object is not provided, a new response is created with the error message and status code.
  * @returns The response object.
  */
  getResponse() {
    if (this.res) return new Response(this.res.body, {
      status: this.status,
      headers: this.res.headers
    });
    return new Response(this.message, { status: this.status });
  }
};

// ../../../work/main/node_modules/hono/dist/request/constants.js
var GET_MATCH_RESULT = /* @__PURE__ */ Symbol();

// ../../../work/main/node_modules/hono/dist/utils/buffer.js
var bufferToFormData = /* @__PURE__ */ __name((arrayBuffer, contentType) => {
  return new Response(arrayBuffer, { headers: { "Content-Type": contentType.replace(/^[^;]+/, (mediaType) => mediaType.toLowerCase()) } }).formData();
}, "bufferToFormData");

// ../../../work/main/node_modules/hono/dist/utils/body.js
var MAX_NESTED_OBJECTS = 1e4;
var isRawRequest = /* @__PURE__ */ __name((request) => "headers" in request, "isRawRequest");
var parseBody = /* @__PURE__ */ __name(async (request, options = /* @__PURE__ */ Object.create(null)) => {
  const { all = false, dot = false } = options;
  const mediaType = (isRawRequest(request) ? request.headers : request.raw.headers).get("Content-Type")?.split(";")[0].trim().toLowerCase();
  if (mediaType === "multipart/form-data" || mediaType === "application/x-www-form-urlencoded") return parseFormData(request, {
    all,
    dot
  });
  return {};
}, "parseBody");
async function parseFormData(request, options) {
  if (!isRawRequest(request) && request.bodyCache.formData) return convertFormDataToBodyData(await request.bodyCache.formData, options);
  const headers = isRawRequest(request) ? request.headers : request.raw.headers;
  const arrayBuffer = await request.arrayBuffer();
  const formDataPromise = bufferToFormData(arrayBuffer, headers.get("Content-Type") || "");
  if (!isRawRequest(request)) request.bodyCache.formData = formDataPromise;
  const formData = await formDataPromise;
  if (formData) return convertFormDataToBodyData(formData, options);
  return {};
}
__name(parseFormData, "parseFormData");
function convertFormDataToBodyData(formData, options) {
  const form = /* @__PURE__ */ Object.create(null);
  const nestingState = { count: 0 };
  formData.forEach((value, key) => {
    if (!(options.all || key.endsWith("[]"))) form[key] = value;
    else handleParsingAllValues(form, key, value);
  });
  if (options.dot) Object.entries(form).forEach(([key, value]) => {
    if (key.includes(".")) {
      handleParsingNestedValues(form, key, value, nestingState);
      delete form[key];
    }
  });
  return form;
}
__name(convertFormDataToBodyData, "convertFormDataToBodyData");
var handleParsingAllValues = /* @__PURE__ */ __name((form, key, value) => {
  if (form[key] !== void 0) {
    if (Array.isArray(form[key])) form[key].push(value);
    else form[key] = [form[key], value];
  } else if (!key.endsWith("[]")) form[key] = value;
  else form[key] = [value];
}, "handleParsingAllValues");
var handleParsingNestedValues = /* @__PURE__ */ __name((form, key, value, state) => {
  if (/(?:^|\.)__proto__\./.test(key)) return;
  let nestedForm = form;
  const keys = key.split(".", 34);
  if (keys.length > 33) throwNestingLimitExceeded();
  keys.forEach((key2, index) => {
    if (index === keys.length - 1) nestedForm[key2] = value;
    else {
      if (!nestedForm[key2] || typeof nestedForm[key2] !== "object" || Array.isArray(nestedForm[key2]) || nestedForm[key2] instanceof File) {
        if (state.count++ >= MAX_NESTED_OBJECTS) throwNestingLimitExceeded();
        nestedForm[key2] = /* @__PURE__ */ Object.create(null);
      }
      nestedForm = nestedForm[key2];
    }
  });
}, "handleParsingNestedValues");
var throwNestingLimitExceeded = /* @__PURE__ */ __name(() => {
  throw new Error("Nesting limit exceeded");
}, "throwNestingLimitExceeded");

// ../../../work/main/node_modules/hono/dist/utils/url.js
var splitPath = /* @__PURE__ */ __name((path) => {
  const paths = path.split("/");
  if (paths[0] === "") paths.shift();
  return paths;
}, "splitPath");
var splitRoutingPath = /* @__PURE__ */ __name((routePath2) => {
  const { groups, path } = extractGroupsFromPath(routePath2);
  const paths = splitPath(path);
  return replaceGroupMarks(paths, groups);
}, "splitRoutingPath");
var extractGroupsFromPath = /* @__PURE__ */ __name((path) => {
  const groups = [];
  path = path.replace(/\{[^}]+\}/g, (match2, index) => {
    const mark = `@${index}`;
    groups.push([mark, match2]);
    return mark;
  });
  return {
    groups,
    path
  };
}, "extractGroupsFromPath");
var replaceGroupMarks = /* @__PURE__ */ __name((paths, groups) => {
  for (let i = groups.length - 1; i >= 0; i--) {
    const [mark] = groups[i];
    for (let j = paths.length - 1; j >= 0; j--) if (paths[j].includes(mark)) {
      paths[j] = paths[j].replace(mark, groups[i][1]);
      break;
    }
  }
  return paths;
}, "replaceGroupMarks");
var patternCache = {};
var getPattern = /* @__PURE__ */ __name((label, next) => {
  if (label === "*") return "*";
  const match2 = label.match(/^\:([^\{\}]+)(?:\{(.+)\})?$/);
  if (match2) {
    const cacheKey = `${label}#${next}`;
    if (!patternCache[cacheKey]) {
      if (match2[2]) patternCache[cacheKey] = next && next[0] !== ":" && next[0] !== "*" ? [
        cacheKey,
        match2[1],
        new RegExp(`^${match2[2]}(?=/${next})`)
      ] : [
        label,
        match2[1],
        new RegExp(`^${match2[2]}$`)
      ];
      else patternCache[cacheKey] = [
        label,
        match2[1],
        true
      ];
    }
    return patternCache[cacheKey];
  }
  return null;
}, "getPattern");
var tryDecode = /* @__PURE__ */ __name((str2, decoder2) => {
  try {
    return decoder2(str2);
  } catch {
    return str2.replace(/(?:%[0-9A-Fa-f]{2})+/g, (match2) => {
      try {
        return decoder2(match2);
      } catch {
        return match2;
      }
    });
  }
}, "tryDecode");
var decodeURIWithPreservedPercent = /* @__PURE__ */ __name((value) => decodeURI(value.includes("%25") ? value.replace(/%25/g, "%2525") : value), "decodeURIWithPreservedPercent");
var getPath = /* @__PURE__ */ __name((request) => {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf(":") + 4);
  let i = start;
  for (; i < url.length; i++) {
    const charCode = url.charCodeAt(i);
    if (charCode === 37) {
      const queryIndex = url.indexOf("?", i);
      const hashIndex = url.indexOf("#", i);
      const end = queryIndex === -1 ? hashIndex === -1 ? void 0 : hashIndex : hashIndex === -1 ? queryIndex : Math.min(queryIndex, hashIndex);
      const path = url.slice(start, end);
      const decoded = tryDecode(path, decodeURIWithPreservedPercent);
      if (/%(?![0-9A-Fa-f]{2})/.test(path)) {
        const rewritten = new URL("http://localhost");
        rewritten.pathname = decoded.replace(/[\\\t\n\r]/g, encodeURIComponent);
        if (tryDecode(rewritten.pathname, decodeURIWithPreservedPercent) !== decoded) return tryDecode(path.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"), decodeURIWithPreservedPercent);
      }
      return decoded;
    } else if (charCode === 63 || charCode === 35) break;
  }
  return url.slice(start, i);
}, "getPath");
var getPathNoStrict = /* @__PURE__ */ __name((request) => {
  const result = getPath(request);
  return result.length > 1 && result.at(-1) === "/" ? result.slice(0, -1) : result;
}, "getPathNoStrict");
var mergePath = /* @__PURE__ */ __name((base, sub, ...rest) => {
  if (rest.length) sub = mergePath(sub, ...rest);
  return `${base?.[0] === "/" ? "" : "/"}${base}${sub === "/" ? "" : `${base?.at(-1) === "/" ? "" : "/"}${sub?.[0] === "/" ? sub.slice(1) : sub}`}`;
}, "mergePath");
var checkOptionalParameter = /* @__PURE__ */ __name((path) => {
  if (path.charCodeAt(path.length - 1) !== 63 || !path.includes(":")) return null;
  const segments = path.split("/");
  const results = [];
  let basePath = "";
  segments.forEach((segment) => {
    if (segment !== "" && !/\:/.test(segment)) basePath += "/" + segment;
    else if (/\:/.test(segment)) {
      if (segment.charCodeAt(segment.length - 1) === 63) {
        if (results.length === 0 && basePath === "") results.push("/");
        else results.push(basePath);
        const optionalSegment = segment.slice(0, -1);
        basePath += "/" + optionalSegment;
        results.push(basePath);
      } else basePath += "/" + segment;
    }
  });
  return results.filter((v, i, a) => a.indexOf(v) === i);
}, "checkOptionalParameter");
var tryDecodeURIComponent = /* @__PURE__ */ __name((str2) => str2.indexOf("%") !== -1 ? tryDecode(str2, decodeURIComponent_) : str2, "tryDecodeURIComponent");
var _decodeURI = /* @__PURE__ */ __name((value) => {
  if (value.indexOf("+") !== -1) value = value.replace(/\+/g, " ");
  return tryDecodeURIComponent(value);
}, "_decodeURI");
var _getQueryParam = /* @__PURE__ */ __name((url, key, multiple) => {
  const hashIndex = url.indexOf("#", 8);
  if (hashIndex !== -1) url = url.slice(0, hashIndex);
  let encoded;
  if (!multiple && key && !/[%+&=]/.test(key)) {
    const queryIndex = url.indexOf("?", 8);
    let keyIndex2 = queryIndex;
    if (keyIndex2 === -1) return;
    if (!url.startsWith(key, keyIndex2 + 1)) keyIndex2 = url.indexOf(`&${key}`, keyIndex2 + 1);
    while (keyIndex2 !== -1) {
      const trailingKeyCode = url.charCodeAt(keyIndex2 + key.length + 1);
      if (trailingKeyCode === 61 || trailingKeyCode === 38 || isNaN(trailingKeyCode)) {
        if (keyIndex2 > queryIndex && /(?:^|&)[^=&]*[%+]/.test(url.slice(queryIndex + 1, keyIndex2))) break;
        if (trailingKeyCode === 61) {
          const valueIndex = keyIndex2 + key.length + 2;
          const endIndex = url.indexOf("&", valueIndex);
          return _decodeURI(url.slice(valueIndex, endIndex === -1 ? void 0 : endIndex));
        }
        return "";
      }
      keyIndex2 = url.indexOf(`&${key}`, keyIndex2 + 1);
    }
    encoded = /[%+]/.test(url);
    if (!encoded) return;
  }
  const results = /* @__PURE__ */ Object.create(null);
  encoded ??= /[%+]/.test(url);
  let keyIndex = url.indexOf("?", 8);
  while (keyIndex !== -1) {
    const nextKeyIndex = url.indexOf("&", keyIndex + 1);
    let valueIndex = url.indexOf("=", keyIndex);
    if (valueIndex > nextKeyIndex && nextKeyIndex !== -1) valueIndex = -1;
    let name = url.slice(keyIndex + 1, valueIndex === -1 ? nextKeyIndex === -1 ? void 0 : nextKeyIndex : valueIndex);
    if (encoded) name = _decodeURI(name);
    keyIndex = nextKeyIndex;
    if (name === "") continue;
    let value;
    if (valueIndex === -1) value = "";
    else {
      value = url.slice(valueIndex + 1, nextKeyIndex === -1 ? void 0 : nextKeyIndex);
      if (encoded) value = _decodeURI(value);
    }
    if (multiple) {
      if (!(results[name] && Array.isArray(results[name]))) results[name] = [];
      results[name].push(value);
    } else results[name] ??= value;
  }
  return key ? results[key] : results;
}, "_getQueryParam");
var getQueryParam = _getQueryParam;
var getQueryParams = /* @__PURE__ */ __name((url, key) => {
  return _getQueryParam(url, key, true);
}, "getQueryParams");
var decodeURIComponent_ = decodeURIComponent;

// ../../../work/main/node_modules/hono/dist/request.js
var HonoRequest = class {
  static {
    __name(this, "HonoRequest");
  }
  /**
  * `.raw` can get the raw Request object.
  *
  * @see {@link https://hono.dev/docs/api/request#raw}
  *
  * @example
  * ```ts
  * // For Cloudflare Workers
  * app.post('/', async (c) => {
  *   const metadata = c.req.raw.cf?.hostMetadata?
  *   ...
  * })
  * ```
  */
  raw;
  #validatedData;
  #matchResult;
  routeIndex = 0;
  /**
  * `.path` can get the pathname of the request.
  *
  * @see {@link https://hono.dev/docs/api/request#path}
  *
  * @example
  * ```ts
  * app.get('/about/me', (c) => {
  *   const pathname = c.req.path // `/about/me`
  * })
  * ```
  */
  path;
  bodyCache = {};
  constructor(request, path = "/", matchResult = [[]]) {
    this.raw = request;
    this.path = path;
    this.#matchResult = matchResult;
  }
  param(key) {
    return key ? this.#getDecodedParam(key) : this.#getAllDecodedParams();
  }
  #getDecodedParam(key) {
    const paramKey2 = this.#matchResult[0][this.routeIndex]?.[1][key];
    const param = this.#getParamValue(paramKey2);
    return param && tryDecodeURIComponent(param);
  }
  #getAllDecodedParams() {
    const decoded = {};
    const keys = Object.keys(this.#matchResult[0][this.routeIndex]?.[1] ?? {});
    for (const key of keys) {
      const value = this.#getParamValue(this.#matchResult[0][this.routeIndex][1][key]);
      if (value !== void 0) decoded[key] = tryDecodeURIComponent(value);
    }
    return decoded;
  }
  #getParamValue(paramKey2) {
    return this.#matchResult[1] ? this.#matchResult[1][paramKey2] : paramKey2;
  }
  query(key) {
    return getQueryParam(this.url, key);
  }
  queries(key) {
    return getQueryParams(this.url, key);
  }
  header(name) {
    if (name) return this.raw.headers.get(name) ?? void 0;
    const headerData = /* @__PURE__ */ Object.create(null);
    this.raw.headers.forEach((value, key) => {
      headerData[key] = value;
    });
    return headerData;
  }
  async parseBody(options) {
    return parseBody(this, options);
  }
  #cachedBody = /* @__PURE__ */ __name((key) => {
    const { bodyCache, raw: raw2 } = this;
    const cachedBody = bodyCache[key];
    if (cachedBody) return cachedBody;
    for (const anyCachedKey in bodyCache) return bodyCache[anyCachedKey].then((body) => {
      if (anyCachedKey === "json") body = JSON.stringify(body);
      const contentType = anyCachedKey === "formData" ? void 0 : raw2.headers.get("content-type");
      return new Response(body, { headers: contentType ? { "Content-Type": contentType } : void 0 })[key]();
    });
    return bodyCache[key] = raw2[key]();
  }, "#cachedBody");
  /**
  * `.json()` can parse Request body of type `application/json`
  *
  * @see {@link https://hono.dev/docs/api/request#json}
  *
  * @example
  * ```ts
  * app.post('/entry', async (c) => {
  *   const body = await c.req.json()
  * })
  * ```
  */
  json() {
    return this.#cachedBody("text").then((text2) => JSON.parse(text2));
  }
  /**
  * `.text()` can parse Request body of type `text/plain`
  *
  * @see {@link https://hono.dev/docs/api/request#text}
  *
  * @example
  * ```ts
  * app.post('/entry', async (c) => {
  *   const body = await c.req.text()
  * })
  * ```
  */
  text() {
    return this.#cachedBody("text");
  }
  /**
  * `.arrayBuffer()` parse Request body as an `ArrayBuffer`
  *
  * @see {@link https://hono.dev/docs/api/request#arraybuffer}
  *
  * @example
  * ```ts
  * app.post('/entry', async (c) => {
  *   const body = await c.req.arrayBuffer()
  * })
  * ```
  */
  arrayBuffer() {
    return this.#cachedBody("arrayBuffer");
  }
  /**
  * `.bytes()` parses the request body as a `Uint8Array`.
  *
  * @see {@link https://hono.dev/docs/api/request#bytes}
  *
  * @example
  * ```ts
  * app.post('/entry', async (c) => {
  *   const body = await c.req.bytes()
  * })
  * ```
  */
  bytes() {
    return this.#cachedBody("arrayBuffer").then((buffer) => new Uint8Array(buffer));
  }
  /**
  * Parses the request body as a `Blob`.
  * @example
  * ```ts
  * app.post('/entry', async (c) => {
  *   const body = await c.req.blob();
  * });
  * ```
  * @see https://hono.dev/docs/api/request#blob
  */
  blob() {
    return this.#cachedBody("blob");
  }
  /**
  * Parses the request body as `FormData`.
  * @example
  * ```ts
  * app.post('/entry', async (c) => {
  *   const body = await c.req.formData();
  * });
  * ```
  * @see https://hono.dev/docs/api/request#formdata
  */
  formData() {
    return this.#cachedBody("formData");
  }
  /**
  * Adds validated data to the request.
  *
  * @param target - The target of the validation.
  * @param data - The validated data to add.
  */
  addValidatedData(target, data) {
    (this.#validatedData ??= {})[target] = data;
  }
  valid(target) {
    return this.#validatedData?.[target];
  }
  /**
  * `.url` can get the request url strings.
  *
  * @see {@link https://hono.dev/docs/api/request#url}
  *
  * @example
  * ```ts
  * app.get('/about/me', (c) => {
  *   const url = c.req.url // `http://localhost:8787/about/me`
  *   ...
  * })
  * ```
  */
  get url() {
    return this.raw.url;
  }
  /**
  * `.method` can get the method name of the request.
  *
  * @see {@link https://hono.dev/docs/api/request#method}
  *
  * @example
  * ```ts
  * app.get('/about/me', (c) => {
  *   const method = c.req.method // `GET`
  * })
  * ```
  */
  get method() {
    return this.raw.method;
  }
  get [GET_MATCH_RESULT]() {
    return this.#matchResult;
  }
  /**
  * `.matchedRoutes` can return a matched route in the handler
  *
  * @deprecated
  *
  * Use matchedRoutes helper defined in "hono/route" instead.
  *
  * @see {@link https://hono.dev/docs/api/request#matchedroutes}
  *
  * @example
  * ```ts
  * app.use('*', async function logger(c, next) {
  *   await next()
  *   c.req.matchedRoutes.forEach(({ handler, method, path }, i) => {
  *     const name = handler.name || (handler.length < 2 ? '[handler]' : '[middleware]')
  *     console.log(
  *       method,
  *       ' ',
  *       path,
  *       ' '.repeat(Math.max(10 - path.length, 0)),
  *       name,
  *       i === c.req.routeIndex ? '<- respond from here' : ''
  *     )
  *   })
  * })
  * ```
  */
  get matchedRoutes() {
    return this.#matchResult[0].map(([[, route]]) => route);
  }
  /**
  * `.routePath` can retrieve the path registered within the handler
  *
  * @deprecated
  *
  * Use routePath helper defined in "hono/route" instead.
  *
  * @see {@link https://hono.dev/docs/api/request#routepath}
  *
  * @example
  * ```ts
  * app.get('/posts/:id', (c) => {
  *   return c.json({ path: c.req.routePath })
  * })
  * ```
  */
  get routePath() {
    return this.#matchResult[0].map(([[, route]]) => route)[this.routeIndex].path;
  }
};

// ../../../work/main/node_modules/hono/dist/utils/html.js
var HtmlEscapedCallbackPhase = {
  Stringify: 1,
  BeforeStream: 2,
  Stream: 3
};
var raw = /* @__PURE__ */ __name((value, callbacks) => {
  const escapedString = new String(value);
  escapedString.isEscaped = true;
  escapedString.callbacks = callbacks;
  return escapedString;
}, "raw");
var escapeRe = /[&<>'"]/;
var stringBufferToString = /* @__PURE__ */ __name(async (buffer, callbacks) => {
  let str2 = "";
  callbacks ||= [];
  const resolvedBuffer = await Promise.all(buffer);
  for (let i = resolvedBuffer.length - 1; ; i--) {
    str2 += resolvedBuffer[i];
    i--;
    if (i < 0) break;
    let r = resolvedBuffer[i];
    if (r == null || typeof r === "boolean") continue;
    if (typeof r === "number") {
      str2 += r;
      continue;
    }
    if (typeof r === "object") callbacks.push(...r.callbacks || []);
    const isEscaped = r.isEscaped;
    r = await (typeof r === "object" ? r.toString() : r);
    if (typeof r === "object") callbacks.push(...r.callbacks || []);
    if (r.isEscaped ?? isEscaped) str2 += r;
    else {
      const buf = [str2];
      escapeToBuffer(r, buf);
      str2 = buf[0];
    }
  }
  return raw(str2, callbacks);
}, "stringBufferToString");
var escapeToBuffer = /* @__PURE__ */ __name((str2, buffer) => {
  const match2 = str2.search(escapeRe);
  if (match2 === -1) {
    buffer[0] += str2;
    return;
  }
  let escape;
  let index;
  let lastIndex = 0;
  for (index = match2; index < str2.length; index++) {
    switch (str2.charCodeAt(index)) {
      case 34:
        escape = "&quot;";
        break;
      case 39:
        escape = "&#39;";
        break;
      case 38:
        escape = "&amp;";
        break;
      case 60:
        escape = "&lt;";
        break;
      case 62:
        escape = "&gt;";
        break;
      default:
        continue;
    }
    buffer[0] += str2.substring(lastIndex, index) + escape;
    lastIndex = index + 1;
  }
  buffer[0] += str2.substring(lastIndex, index);
}, "escapeToBuffer");
var resolveCallbackSync = /* @__PURE__ */ __name((str2) => {
  const callbacks = str2.callbacks;
  if (!callbacks?.length) return str2;
  const buffer = [str2];
  const context = {};
  callbacks.forEach((c) => c({
    phase: HtmlEscapedCallbackPhase.Stringify,
    buffer,
    context
  }));
  return buffer[0];
}, "resolveCallbackSync");
var resolveCallback = /* @__PURE__ */ __name(async (str2, phase, preserveCallbacks, context, buffer) => {
  if (typeof str2 === "object" && !(str2 instanceof String)) {
    if (!(str2 instanceof Promise)) str2 = str2.toString();
    if (str2 instanceof Promise) str2 = await str2;
  }
  const callbacks = str2.callbacks;
  if (!callbacks?.length) return Promise.resolve(str2);
  if (buffer) buffer[0] += str2;
  else buffer = [str2];
  const resStr = Promise.all(callbacks.map((c) => c({
    phase,
    buffer,
    context
  }))).then((res) => Promise.all(res.filter(Boolean).map((str3) => resolveCallback(str3, phase, false, context, buffer))).then(() => buffer[0]));
  if (preserveCallbacks) return raw(await resStr, callbacks);
  else return resStr;
}, "resolveCallback");

// ../../../work/main/node_modules/hono/dist/context.js
var TEXT_PLAIN = "text/plain; charset=UTF-8";
var setDefaultContentType = /* @__PURE__ */ __name((contentType, headers) => {
  return {
    "Content-Type": contentType,
    ...headers
  };
}, "setDefaultContentType");
var createResponseInstance = /* @__PURE__ */ __name((body, init) => new Response(body, init), "createResponseInstance");
var Context = class {
  static {
    __name(this, "Context");
  }
  #rawRequest;
  #req;
  /**
  * `.env` can get bindings (environment variables, secrets, KV namespaces, D1 database, R2 bucket etc.) in Cloudflare Workers.
  *
  * @see {@link https://hono.dev/docs/api/context#env}
  *
  * @example
  * ```ts
  * // Environment object for Cloudflare Workers
  * app.get('*', async c => {
  *   const counter = c.env.COUNTER
  * })
  * ```
  */
  env = {};
  #var;
  finalized = false;
  /**
  * `.error` can get the error object from the middleware if the Handler throws an error.
  *
  * @see {@link https://hono.dev/docs/api/context#error}
  *
  * @example
  * ```ts
  * app.use('*', async (c, next) => {
  *   await next()
  *   if (c.error) {
  *     // do something...
  *   }
  * })
  * ```
  */
  error;
  #status;
  #executionCtx;
  #res;
  #layout;
  #renderer;
  #notFoundHandler;
  #preparedHeaders;
  #matchResult;
  #path;
  /**
  * Creates an instance of the Context class.
  *
  * @param req - The Request object.
  * @param options - Optional configuration options for the context.
  */
  constructor(req, options) {
    this.#rawRequest = req;
    if (options) {
      this.#executionCtx = options.executionCtx;
      this.env = options.env;
      this.#notFoundHandler = options.notFoundHandler;
      this.#path = options.path;
      this.#matchResult = options.matchResult;
    }
  }
  /**
  * `.req` is the instance of {@link HonoRequest}.
  */
  get req() {
    this.#req ??= new HonoRequest(this.#rawRequest, this.#path, this.#matchResult);
    return this.#req;
  }
  /**
  * @see {@link https://hono.dev/docs/api/context#event}
  * The FetchEvent associated with the current request.
  *
  * @throws Will throw an error if the context does not have a FetchEvent.
  */
  get event() {
    if (this.#executionCtx && "respondWith" in this.#executionCtx) return this.#executionCtx;
    else throw Error("This context has no FetchEvent");
  }
  /**
  * @see {@link https://hono.dev/docs/api/context#executionctx}
  * The ExecutionContext associated with the current request.
  *
  * @throws Will throw an error if the context does not have an ExecutionContext.
  */
  get executionCtx() {
    if (this.#executionCtx) return this.#executionCtx;
    else throw Error("This context has no ExecutionContext");
  }
  /**
  * @see {@link https://hono.dev/docs/api/context#res}
  * The Response object for the current request.
  */
  get res() {
    return this.#res ||= createResponseInstance(null, { headers: this.#preparedHeaders ??= new Headers() });
  }
  /**
  * Sets the Response object for the current request.
  *
  * @param _res - The Response object to set.
  */
  set res(_res) {
    if (this.#res && _res) {
      _res = createResponseInstance(_res.body, _res);
      for (const [k, v] of this.#res.headers.entries()) {
        if (k === "content-type") continue;
        if (k === "set-cookie") {
          const cookies = this.#res.headers.getSetCookie();
          _res.headers.delete("set-cookie");
          for (const cookie of cookies) _res.headers.append("set-cookie", cookie);
        } else _res.headers.set(k, v);
      }
    }
    this.#res = _res;
    this.finalized = true;
  }
  /**
  * `.render()` can create a response within a layout.
  *
  * @see {@link https://hono.dev/docs/api/context#render-setrenderer}
  *
  * @example
  * ```ts
  * app.get('/', (c) => {
  *   return c.render('Hello!')
  * })
  * ```
  */
  render = /* @__PURE__ */ __name((...args) => {
    this.#renderer ??= (content) => this.html(content);
    return this.#renderer(...args);
  }, "render");
  /**
  * Sets the layout for the response.
  *
  * @param layout - The layout to set.
  * @returns The layout function.
  */
  setLayout = /* @__PURE__ */ __name((layout2) => this.#layout = layout2, "setLayout");
  /**
  * Gets the current layout for the response.
  *
  * @returns The current layout function.
  */
  getLayout = /* @__PURE__ */ __name(() => this.#layout, "getLayout");
  /**
  * `.setRenderer()` can set the layout in the custom middleware.
  *
  * @see {@link https://hono.dev/docs/api/context#render-setrenderer}
  *
  * @example
  * ```tsx
  * app.use('*', async (c, next) => {
  *   c.setRenderer((content) => {
  *     return c.html(
  *       <html>
  *         <body>
  *           <p>{content}</p>
  *         </body>
  *       </html>
  *     )
  *   })
  *   await next()
  * })
  * ```
  */
  setRenderer = /* @__PURE__ */ __name((renderer) => {
    this.#renderer = renderer;
  }, "setRenderer");
  /**
  * `.header()` can set headers.
  *
  * @see {@link https://hono.dev/docs/api/context#header}
  *
  * @example
  * ```ts
  * app.get('/welcome', (c) => {
  *   // Set headers
  *   c.header('X-Message', 'Hello!')
  *   c.header('Content-Type', 'text/plain')
  *
  *   // Append multiple headers using the append option (e.g. Vary)
  *   c.header('Vary', 'Accept-Encoding', { append: true })
  *   c.header('Vary', 'User-Agent', { append: true })
  *
  *   return c.body('Thank you for coming')
  * })
  * ```
  */
  header = /* @__PURE__ */ __name((name, value, options) => {
    if (this.finalized && !this.#res.bodyUsed) this.#res = createResponseInstance(this.#res.body, this.#res);
    const headers = this.#res ? this.#res.headers : this.#preparedHeaders ??= new Headers();
    if (value === void 0) headers.delete(name);
    else if (options?.append) headers.append(name, value);
    else headers.set(name, value);
  }, "header");
  status = /* @__PURE__ */ __name((status) => {
    this.#status = status;
  }, "status");
  /**
  * `.set()` can set the value specified by the key.
  *
  * @see {@link https://hono.dev/docs/api/context#set-get}
  *
  * @example
  * ```ts
  * app.use('*', async (c, next) => {
  *   c.set('message', 'Hono is hot!!')
  *   await next()
  * })
  * ```
  */
  set = /* @__PURE__ */ __name((key, value) => {
    this.#var ??= /* @__PURE__ */ new Map();
    this.#var.set(key, value);
  }, "set");
  /**
  * `.get()` can use the value specified by the key.
  *
  * @see {@link https://hono.dev/docs/api/context#set-get}
  *
  * @example
  * ```ts
  * app.get('/', (c) => {
  *   const message = c.get('message')
  *   return c.text(`The message is "${message}"`)
  * })
  * ```
  */
  get = /* @__PURE__ */ __name((key) => {
    return this.#var ? this.#var.get(key) : void 0;
  }, "get");
  /**
  * `.var` can access the value of a variable.
  *
  * @see {@link https://hono.dev/docs/api/context#var}
  *
  * @example
  * ```ts
  * const result = c.var.client.oneMethod()
  * ```
  */
  get var() {
    if (!this.#var) return {};
    return Object.fromEntries(this.#var);
  }
  #newResponse(data, arg, headers) {
    let responseHeaders = this.#res ? new Headers(this.#res.headers) : this.#preparedHeaders;
    if (typeof arg === "object" && arg.headers) {
      responseHeaders ??= new Headers();
      for (const [key, value] of new Headers(arg.headers)) if (key === "set-cookie") responseHeaders.append(key, value);
      else responseHeaders.set(key, value);
    }
    if (headers) {
      if (!responseHeaders) {
        let count = 0;
        for (const k in headers) if (++count > 1 || typeof headers[k] !== "string") {
          responseHeaders = new Headers();
          break;
        }
      }
      if (responseHeaders) for (const k in headers) {
        const v = headers[k];
        if (typeof v === "string") responseHeaders.set(k, v);
        else {
          responseHeaders.delete(k);
          for (const v2 of v) responseHeaders.append(k, v2);
        }
      }
    }
    const status = typeof arg === "number" ? arg : arg?.status ?? this.#status;
    return createResponseInstance(data, {
      status,
      headers: responseHeaders ?? headers
    });
  }
  newResponse = /* @__PURE__ */ __name((...args) => this.#newResponse(...args), "newResponse");
  /**
  * `.body()` can return the HTTP response.
  * You can set headers with `.header()` and set HTTP status code with `.status`.
  * This can also be set in `.text()`, `.json()` and so on.
  *
  * @see {@link https://hono.dev/docs/api/context#body}
  *
  * @example
  * ```ts
  * app.get('/welcome', (c) => {
  *   // Set headers
  *   c.header('X-Message', 'Hello!')
  *   c.header('Content-Type', 'text/plain')
  *   // Set HTTP status code
  *   c.status(201)
  *
  *   // Return the response body
  *   return c.body('Thank you for coming')
  * })
  * ```
  */
  body = /* @__PURE__ */ __name((data, arg, headers) => this.#newResponse(data, arg, headers), "body");
  /**
  * `.text()` can render text as `Content-Type:text/plain`.
  *
  * @see {@link https://hono.dev/docs/api/context#text}
  *
  * @example
  * ```ts
  * app.get('/say', (c) => {
  *   return c.text('Hello!')
  * })
  * ```
  */
  text = /* @__PURE__ */ __name((text2, arg, headers) => {
    return !this.#preparedHeaders && !this.#status && !arg && !headers && !this.finalized ? new Response(text2) : this.#newResponse(text2, arg, setDefaultContentType(TEXT_PLAIN, headers));
  }, "text");
  /**
  * `.json()` can render JSON as `Content-Type:application/json`.
  *
  * @see {@link https://hono.dev/docs/api/context#json}
  *
  * @example
  * ```ts
  * app.get('/api', (c) => {
  *   return c.json({ message: 'Hello!' })
  * })
  * ```
  */
  json = /* @__PURE__ */ __name((object2, arg, headers) => {
    return this.#newResponse(JSON.stringify(object2), arg, setDefaultContentType("application/json", headers));
  }, "json");
  html = /* @__PURE__ */ __name((html2, arg, headers) => {
    const res = /* @__PURE__ */ __name((html3) => this.#newResponse(html3, arg, setDefaultContentType("text/html; charset=UTF-8", headers)), "res");
    return typeof html2 === "object" ? resolveCallback(html2, HtmlEscapedCallbackPhase.Stringify, false, {}).then(res) : res(html2);
  }, "html");
  /**
  * `.redirect()` can Redirect, default status code is 302.
  *
  * @see {@link https://hono.dev/docs/api/context#redirect}
  *
  * @example
  * ```ts
  * app.get('/redirect', (c) => {
  *   return c.redirect('/')
  * })
  * app.get('/redirect-permanently', (c) => {
  *   return c.redirect('/', 301)
  * })
  * ```
  */
  redirect = /* @__PURE__ */ __name((location, status) => {
    const locationString = String(location);
    this.header("Location", !/[^\x00-\xFF]/.test(locationString) ? locationString : encodeURI(locationString));
    return this.newResponse(null, status ?? 302);
  }, "redirect");
  /**
  * `.notFound()` can return the Not Found Response.
  *
  * @see {@link https://hono.dev/docs/api/context#notfound}
  *
  * @example
  * ```ts
  * app.get('/notfound', (c) => {
  *   return c.notFound()
  * })
  * ```
  */
  notFound = /* @__PURE__ */ __name(() => {
    this.#notFoundHandler ??= () => createResponseInstance();
    return this.#notFoundHandler(this);
  }, "notFound");
};

// ../../../work/main/node_modules/hono/dist/compose.js
var compose = /* @__PURE__ */ __name((middleware, onError, onNotFound) => {
  return (context, next) => {
    let index = -1;
    return dispatch(0);
    async function dispatch(i) {
      if (i <= index) throw new Error("next() called multiple times");
      index = i;
      let res;
      let isError = false;
      let handler;
      if (middleware[i]) {
        handler = middleware[i][0][0];
        context.req.routeIndex = i;
      } else handler = i === middleware.length && next || void 0;
      if (handler) try {
        res = await handler(context, () => dispatch(i + 1));
      } catch (err) {
        if (err instanceof Error && onError) {
          context.error = err;
          res = await onError(err, context);
          isError = true;
        } else throw err;
      }
      else if (context.finalized === false && onNotFound) res = await onNotFound(context);
      if (res && (context.finalized === false || isError)) context.res = res;
      return context;
    }
    __name(dispatch, "dispatch");
  };
}, "compose");

// ../../../work/main/node_modules/hono/dist/helper/route/index.js
var matchedRoutes = /* @__PURE__ */ __name((c) => c.req[GET_MATCH_RESULT][0].map(([[, route]]) => route), "matchedRoutes");
var routePath = /* @__PURE__ */ __name((c, index) => matchedRoutes(c).at(index ?? c.req.routeIndex)?.path ?? "", "routePath");

// ../../../work/main/node_modules/hono/dist/router.js
var METHODS = [
  "get",
  "post",
  "put",
  "delete",
  "options",
  "patch",
  "query"
];
var MESSAGE_MATCHER_IS_ALREADY_BUILT = "Can not add a route since the matcher is already built.";
var UnsupportedPathError = class extends Error {
  static {
    __name(this, "UnsupportedPathError");
  }
};

// ../../../work/main/node_modules/hono/dist/utils/constants.js
var COMPOSED_HANDLER = "__COMPOSED_HANDLER";

// ../../../work/main/node_modules/hono/dist/utils/mount.js
var countTrailingSlashes = /* @__PURE__ */ __name((path) => {
  let index = path.length;
  while (index > 0 && path.charCodeAt(index - 1) === 47) index--;
  return path.length - index;
}, "countTrailingSlashes");
var getPathPrefixLength = /* @__PURE__ */ __name((c, pathPrefix, routePath2) => {
  if (!/[:*]/.test(pathPrefix)) return pathPrefix.length;
  const path = c.req.path;
  const matchResult = c.req[GET_MATCH_RESULT];
  const paramNames = /* @__PURE__ */ new Set();
  let length = 0;
  for (const part of splitRoutingPath(pathPrefix)) {
    if (part[0] === ":" && part.endsWith("}?")) throw new Error(`mount(): Optional regular expression parameters are not supported in "${routePath2}".`);
    const pattern = getPattern(part);
    if (pattern && pattern !== "*") {
      const name = pattern[1];
      if (paramNames.has(name)) throw new Error(`mount(): Duplicate path parameter "${name}" in "${routePath2}".`);
      paramNames.add(name);
    }
    if (pattern && pattern !== "*" && pattern[2] !== true) {
      const value = matchResult.length === 2 ? matchResult[1][matchResult[0][c.req.routeIndex][1][pattern[1]]] : matchResult[0][c.req.routeIndex][1][pattern[1]];
      length += value.length + 1;
    } else if (pattern || part.endsWith("*")) {
      const end = path.indexOf("/", length + 1);
      length = end === -1 ? path.length : end;
    } else length += part.length + 1;
  }
  return length;
}, "getPathPrefixLength");
var createMountedRequest = /* @__PURE__ */ __name((c, pathPrefix, routePath2) => {
  if (/[^/]\*$/.test(routePath2)) throw new Error(`mount(): Wildcard must follow "/" in "${routePath2}".`);
  const prefixLength = getPathPrefixLength(c, pathPrefix, routePath2);
  const path = c.req.path.slice(prefixLength) || "/";
  if (prefixLength > c.req.path.length || path[0] !== "/" || /\/(?:\.|%2e){1,2}(?:\/|$)/i.test(path)) throw new HTTPException(400, { message: "Invalid mounted path" });
  const rawUrl = c.req.raw.url;
  if (/^[^/?#]*\/\/[^/?#\\]*[?#\\]/.test(rawUrl)) throw new HTTPException(400, { message: "Invalid mounted path" });
  const rawPathEnd = rawUrl.search(/[?#]/);
  const rawTrailingSlashes = countTrailingSlashes(rawPathEnd === -1 ? rawUrl : rawUrl.slice(0, rawPathEnd));
  if (rawTrailingSlashes > 1 && countTrailingSlashes(c.req.path) === rawTrailingSlashes - 1) throw new HTTPException(400, { message: "Invalid mounted path" });
  const url = new URL(rawUrl);
  url.pathname = path.replace(/[\\\t\n\r]/g, encodeURIComponent);
  if (path.includes("%")) {
  }
  return new Request(url, c.req.raw);
}, "createMountedRequest");

// ../../../work/main/node_modules/hono/dist/hono-base.js
var notFoundHandler = /* @__PURE__ */ __name((c) => {
  return c.text("404 Not Found", 404);
}, "notFoundHandler");
var errorHandler = /* @__PURE__ */ __name((err, c) => {
  if ("getResponse" in err) {
    const res = err.getResponse();
    return c.newResponse(res.body, res);
  }
  console.error(err);
  return c.text("Internal Server Error", 500);
}, "errorHandler");
var Hono = class Hono2 {
  static {
    __name(this, "Hono");
  }
  get;
  post;
  put;
  delete;
  options;
  patch;
  query;
  all;
  on;
  use;
  router;
  getPath;
  _basePath = "/";
  #path = "/";
  routes = [];
  constructor(options = {}) {
    [...METHODS, "all"].forEach((method) => {
      this[method] = (args1, ...args) => {
        const methodName = method.toUpperCase();
        if (typeof args1 === "string") this.#path = args1;
        else this.#addRoute(methodName, this.#path, args1);
        args.forEach((handler) => {
          this.#addRoute(methodName, this.#path, handler);
        });
        return this;
      };
    });
    this.on = (method, path, ...handlers) => {
      for (const p of [path].flat()) {
        this.#path = p;
        for (const m of [method].flat()) {
          const methodName = m.toUpperCase();
          for (const handler of handlers) this.#addRoute(methodName, this.#path, handler);
        }
      }
      return this;
    };
    this.use = (arg1, ...handlers) => {
      if (typeof arg1 === "string") this.#path = arg1;
      else {
        this.#path = "*";
        handlers.unshift(arg1);
      }
      handlers.forEach((handler) => {
        this.#addRoute("ALL", this.#path, handler);
      });
      return this;
    };
    const { strict, ...optionsWithoutStrict } = options;
    Object.assign(this, optionsWithoutStrict);
    this.getPath = strict ?? true ? options.getPath ?? getPath : getPathNoStrict;
  }
  #clone() {
    const clone = new Hono2({
      router: this.router,
      getPath: this.getPath
    });
    clone.errorHandler = this.errorHandler;
    clone.#notFoundHandler = this.#notFoundHandler;
    clone.routes = this.routes;
    return clone;
  }
  #notFoundHandler = notFoundHandler;
  errorHandler = errorHandler;
  /**
  * `.route()` allows grouping other Hono instance in routes.
  *
  * @see {@link https://hono.dev/docs/api/routing#grouping}
  *
  * @param {string} path - base Path
  * @param {Hono} app - other Hono instance
  * @returns {Hono} routed Hono instance
  *
  * @example
  * ```ts
  * const app = new Hono()
  * const app2 = new Hono()
  *
  * app2.get("/user", (c) => c.text("user"))
  * app.route("/api", app2) // GET /api/user
  * ```
  */
  route(path, app2) {
    const subApp = this.basePath(path);
    app2.routes.map((r) => {
      let handler;
      if (app2.errorHandler === errorHandler) handler = r.handler;
      else {
        handler = /* @__PURE__ */ __name(async (c, next) => (await compose([], app2.errorHandler)(c, () => r.handler(c, next))).res, "handler");
        handler[COMPOSED_HANDLER] = r.handler;
      }
      subApp.#addRoute(r.method, r.path, handler, r.basePath);
    });
    return this;
  }
  /**
  * `.basePath()` allows base paths to be specified.
  *
  * @see {@link https://hono.dev/docs/api/routing#base-path}
  *
  * @param {string} path - base Path
  * @returns {Hono} changed Hono instance
  *
  * @example
  * ```ts
  * const api = new Hono().basePath('/api')
  * ```
  */
  basePath(path) {
    const subApp = this.#clone();
    subApp._basePath = mergePath(this._basePath, path);
    return subApp;
  }
  /**
  * `.onError()` handles an error and returns a customized Response.
  *
  * @see {@link https://hono.dev/docs/api/hono#error-handling}
  *
  * @param {ErrorHandler} handler - request Handler for error
  * @returns {Hono} changed Hono instance
  *
  * @example
  * ```ts
  * app.onError((err, c) => {
  *   console.error(`${err}`)
  *   return c.text('Custom Error Message', 500)
  * })
  * ```
  */
  onError = /* @__PURE__ */ __name((handler) => {
    this.errorHandler = handler;
    return this;
  }, "onError");
  /**
  * `.notFound()` allows you to customize a Not Found Response.
  *
  * @see {@link https://hono.dev/docs/api/hono#not-found}
  *
  * @param {NotFoundHandler} handler - request handler for not-found
  * @returns {Hono} changed Hono instance
  *
  * @example
  * ```ts
  * app.notFound((c) => {
  *   return c.text('Custom 404 Message', 404)
  * })
  * ```
  */
  notFound = /* @__PURE__ */ __name((handler) => {
    this.#notFoundHandler = handler;
    return this;
  }, "notFound");
  /**
  * `.mount()` allows you to mount applications built with other frameworks into your Hono application.
  *
  * @deprecated Use `mount()` from `hono/mount` instead. `.mount()` will be removed in v5.
  *
  * @see {@link https://hono.dev/docs/api/hono#mount}
  *
  * @param {string} path - base Path
  * @param {Function} applicationHandler - other Request Handler
  * @param {MountOptions} [options] - options of `.mount()`
  * @returns {Hono} mounted Hono instance
  * @throws {Error} If automatic request rewriting encounters duplicate path parameter names or an optional regular expression parameter.
  * @throws {HTTPException} With status 400 if automatic request rewriting cannot safely preserve the routed path.
  *
  * @example
  * ```ts
  * import { Router as IttyRouter } from 'itty-router'
  * import { Hono } from 'hono'
  * // Create itty-router application
  * const ittyRouter = IttyRouter()
  * // GET /itty-router/hello
  * ittyRouter.get('/hello', () => new Response('Hello from itty-router'))
  *
  * const app = new Hono()
  * app.mount('/itty-router', ittyRouter.handle)
  * ```
  *
  * @example
  * ```ts
  * const app = new Hono()
  * // Send the request to another application without modification.
  * app.mount('/app', anotherApp, {
  *   replaceRequest: (req) => req,
  * })
  * ```
  */
  mount(path, applicationHandler, options) {
    let replaceRequest;
    let optionHandler;
    if (options) {
      if (typeof options === "function") optionHandler = options;
      else {
        optionHandler = options.optionHandler;
        if (options.replaceRequest === false) replaceRequest = /* @__PURE__ */ __name((request) => request, "replaceRequest");
        else replaceRequest = options.replaceRequest;
      }
    }
    const getOptions = optionHandler ? (c) => {
      const options2 = optionHandler(c);
      return Array.isArray(options2) ? options2 : [options2];
    } : (c) => {
      let executionContext = void 0;
      try {
        executionContext = c.executionCtx;
      } catch {
      }
      return [c.env, executionContext];
    };
    const defaultReplaceRequest = /* @__PURE__ */ __name((c) => {
      const mountedRoutePath = routePath(c);
      return createMountedRequest(c, mountedRoutePath.replace(/\/?\*$/, ""), mountedRoutePath);
    }, "defaultReplaceRequest");
    const handler = /* @__PURE__ */ __name(async (c, next) => {
      const res = await applicationHandler(replaceRequest ? replaceRequest(c.req.raw) : defaultReplaceRequest(c), ...getOptions(c));
      if (res) return res;
      await next();
    }, "handler");
    this.#addRoute("ALL", mergePath(path, "*"), handler);
    return this;
  }
  #addRoute(method, path, handler, baseRoutePath) {
    path = mergePath(this._basePath, path);
    const r = {
      basePath: baseRoutePath !== void 0 ? mergePath(this._basePath, baseRoutePath) : this._basePath,
      path,
      method,
      handler
    };
    this.router.add(method, path, [handler, r]);
    this.routes.push(r);
  }
  #handleError(err, c) {
    if (err instanceof Error) return this.errorHandler(err, c);
    throw err;
  }
  #dispatch(request, executionCtx, env, method) {
    if (method === "HEAD") return (async () => new Response(null, await this.#dispatch(request, executionCtx, env, "GET")))();
    const path = this.getPath(request, { env });
    const matchResult = this.router.match(method, path);
    const c = new Context(request, {
      path,
      matchResult,
      env,
      executionCtx,
      notFoundHandler: this.#notFoundHandler
    });
    if (matchResult[0].length === 1) {
      let res;
      try {
        res = matchResult[0][0][0][0](c, async () => {
          c.res = await this.#notFoundHandler(c);
        });
      } catch (err) {
        return this.#handleError(err, c);
      }
      return res instanceof Promise ? res.then((resolved) => resolved || (c.finalized ? c.res : this.#notFoundHandler(c))).catch((err) => this.#handleError(err, c)) : res ?? this.#notFoundHandler(c);
    }
    const composed = compose(matchResult[0], this.errorHandler, this.#notFoundHandler);
    return (async () => {
      try {
        const context = await composed(c);
        if (!context.finalized) throw new Error("Context is not finalized. Did you forget to return a Response object or `await next()`?");
        return context.res;
      } catch (err) {
        return this.#handleError(err, c);
      }
    })();
  }
  /**
  * `.fetch()` will be entry point of your app.
  *
  * @see {@link https://hono.dev/docs/api/hono#fetch}
  *
  * @param {Request} request - request Object of request
  * @param {Env} env - env Object
  * @param {ExecutionContext} executionCtx - context of execution
  * @returns {Response | Promise<Response>} response of request
  *
  */
  fetch = /* @__PURE__ */ __name((request, ...rest) => {
    return this.#dispatch(request, rest[1], rest[0], request.method);
  }, "fetch");
  /**
  * `.request()` is a useful method for testing.
  * You can pass a URL or pathname to send a GET request.
  * app will return a Response object.
  * ```ts
  * test('GET /hello is ok', async () => {
  *   const res = await app.request('/hello')
  *   expect(res.status).toBe(200)
  * })
  * ```
  * @see https://hono.dev/docs/api/hono#request
  */
  request = /* @__PURE__ */ __name((input, requestInit, Env, executionCtx) => {
    if (input instanceof Request) return this.fetch(requestInit ? new Request(input, requestInit) : input, Env, executionCtx);
    input = input.toString();
    return this.fetch(new Request(/^https?:\/\//.test(input) ? input : `http://localhost${mergePath("/", input)}`, requestInit), Env, executionCtx);
  }, "request");
  /**
  * `.fire()` automatically adds a global fetch event listener.
  * This can be useful for environments that adhere to the Service Worker API, such as non-ES module Cloudflare Workers.
  * @deprecated
  * Use `fire` from `hono/service-worker` instead.
  * ```ts
  * import { Hono } from 'hono'
  * import { fire } from 'hono/service-worker'
  *
  * const app = new Hono()
  * // ...
  * fire(app)
  * ```
  * @see https://hono.dev/docs/api/hono#fire
  * @see https://developer.mozilla.org/en-US/docs/Web/API/Service_Worker_API
  * @see https://developers.cloudflare.com/workers/reference/migrate-to-module-workers/
  */
  fire = /* @__PURE__ */ __name(() => {
    addEventListener("fetch", (event) => {
      event.respondWith(this.#dispatch(event.request, event, void 0, event.request.method));
    });
  }, "fire");
};

// ../../../work/main/node_modules/hono/dist/router/utils.js
var createNullObject = /* @__PURE__ */ __name(() => /* @__PURE__ */ Object.create(null), "createNullObject");

// ../../../work/main/node_modules/hono/dist/router/reg-exp-router/matcher.js
var emptyParam = [];
function match(method, path) {
  const matchers = this.buildAllMatchers();
  const match2 = /* @__PURE__ */ __name(((method2, path2) => {
    const matcher = matchers[method2] || matchers["ALL"];
    const staticMatch = matcher[2][path2];
    if (staticMatch) return staticMatch;
    const match3 = path2.match(matcher[0]);
    if (!match3) return [[], emptyParam];
    const index = match3.indexOf("", 1);
    return [matcher[1][index], match3];
  }), "match");
  this.match = match2;
  return match2(method, path);
}
__name(match, "match");

// ../../../work/main/node_modules/hono/dist/router/reg-exp-router/node.js
var LABEL_REG_EXP_STR = "[^/]+";
var ONLY_WILDCARD_REG_EXP_STR = "[^]*";
var TAIL_WILDCARD_REG_EXP_STR = "(?:|/[^]*)";
var PATH_ERROR = /* @__PURE__ */ Symbol();
var regExpMetaChars = /* @__PURE__ */ new Set(".\\+*[^]$()");
function compareKey(a, b) {
  if (a.length === 1) return b.length === 1 ? a < b ? -1 : 1 : -1;
  if (b.length === 1) return 1;
  if (a === "[^]*" || a === "(?:|/[^]*)") return b === "[^]*" ? -1 : 1;
  else if (b === "[^]*" || b === "(?:|/[^]*)") return -1;
  if (a === "[^/]+") return 1;
  else if (b === "[^/]+") return -1;
  return a.length === b.length ? a < b ? -1 : 1 : b.length - a.length;
}
__name(compareKey, "compareKey");
var Node = class Node2 {
  static {
    __name(this, "Node");
  }
  #index;
  #varIndex;
  #children = createNullObject();
  insert(tokens, index, paramMap, context, keys) {
    let node = this;
    for (let i = 0, len = tokens.length; i < len; i++) {
      const token = tokens[i];
      const pattern = token.length === 1 ? token === "*" ? i === len - 1 ? [
        "",
        "",
        ONLY_WILDCARD_REG_EXP_STR
      ] : [
        "",
        "",
        LABEL_REG_EXP_STR
      ] : null : token === "/*" ? [
        "",
        "",
        TAIL_WILDCARD_REG_EXP_STR
      ] : token.match(/^\:([^\{\}]+)(?:\{(.+)\})?$/);
      let nextNode;
      if (pattern) {
        const name = pattern[1];
        let regexpStr = pattern[2] || "[^/]+";
        if (name && pattern[2]) {
          if (new RegExp(regexpStr).test("")) throw PATH_ERROR;
          regexpStr = regexpStr.replace(/^\((?!\?:)(?=[^)]+\)$)/, "(?:");
          if (/\((?!\?:)/.test(regexpStr)) throw PATH_ERROR;
          if (regexpStr.length === 1 && regExpMetaChars.has(regexpStr)) throw PATH_ERROR;
        }
        keys.push(regexpStr);
        nextNode = node.#children[regexpStr];
        if (!nextNode) {
          if (regexpStr !== "[^]*" && regexpStr !== "(?:|/[^]*)") {
            for (const k in node.#children) if ((regexpStr.length > 1 || k.length > 1) && k !== "[^]*" && k !== "(?:|/[^]*)") throw PATH_ERROR;
          }
          nextNode = node.#children[regexpStr] = new Node2();
        }
        if (name !== "") {
          nextNode.#varIndex ??= context.varIndex++;
          paramMap.push([name, nextNode.#varIndex]);
        }
      } else {
        keys.push(token);
        nextNode = node.#children[token];
        if (!nextNode) {
          for (const k in node.#children) if (k.length > 1 && k !== "[^]*" && k !== "(?:|/[^]*)") throw PATH_ERROR;
          nextNode = node.#children[token] = new Node2();
        }
      }
      node = nextNode;
    }
    if (node.#index !== void 0) throw PATH_ERROR;
    node.#index = index;
  }
  buildRegExpStr() {
    const strList = Object.keys(this.#children).sort(compareKey).map((k) => {
      const c = this.#children[k];
      const childStr = c.buildRegExpStr();
      return childStr === "" ? "" : (typeof c.#varIndex === "number" ? `(${k})@${c.#varIndex}` : regExpMetaChars.has(k) ? `\\${k}` : k) + childStr;
    }).filter(Boolean);
    if (typeof this.#index === "number" && this.#index !== -1) strList.unshift(`#${this.#index}`);
    if (strList.length === 0) return "";
    if (strList.length === 1) return strList[0];
    return "(?:" + strList.join("|") + ")";
  }
};

// ../../../work/main/node_modules/hono/dist/router/reg-exp-router/trie.js
var Trie = class {
  static {
    __name(this, "Trie");
  }
  #context = { varIndex: 0 };
  #root = new Node();
  #index = 0;
  paths = createNullObject();
  insert(path, isStatic) {
    const keys = [];
    if (isStatic) {
      this.#root.insert(path.split(""), -1, [], this.#context, keys);
      this.paths[path] = [
        -1,
        [],
        keys
      ];
      return;
    }
    const paramAssoc = [];
    const groups = [];
    let markedPath = path;
    for (let i = 0; ; ) {
      let replaced = false;
      markedPath = markedPath.replace(/\{(?:\{[\d,]+\}|[^}])+\}/g, (m) => {
        const mark = `@\\${i}`;
        groups[i] = [mark, m];
        i++;
        replaced = true;
        return mark;
      });
      if (!replaced) break;
    }
    const tokens = markedPath.match(/(?::[^\/]+)|(?:\/\*$)|./gs) || [];
    for (let i = groups.length - 1; i >= 0; i--) {
      const [mark] = groups[i];
      for (let j = tokens.length - 1; j >= 0; j--) if (tokens[j].indexOf(mark) !== -1) {
        tokens[j] = tokens[j].replace(mark, groups[i][1]);
        break;
      }
    }
    this.#root.insert(tokens, this.#index, paramAssoc, this.#context, keys);
    this.paths[path] = [
      this.#index++,
      paramAssoc,
      keys
    ];
  }
  buildRegExp() {
    let regexp = this.#root.buildRegExpStr();
    if (regexp === "") return [
      /^$/,
      [],
      []
    ];
    let captureIndex = 0;
    const indexReplacementMap = [];
    const paramReplacementMap = [];
    regexp = regexp.replace(/#(\d+)|@(\d+)|\.\*\$/g, (_, handlerIndex, paramIndex) => {
      if (handlerIndex !== void 0) {
        indexReplacementMap[++captureIndex] = Number(handlerIndex);
        return "$()";
      }
      if (paramIndex !== void 0) {
        paramReplacementMap[Number(paramIndex)] = ++captureIndex;
        return "";
      }
      return "";
    });
    return [
      new RegExp(`^${regexp}`),
      indexReplacementMap,
      paramReplacementMap
    ];
  }
};

// ../../../work/main/node_modules/hono/dist/router/reg-exp-router/router.js
function endsWithWildcard(keys) {
  const tail = keys[keys.length - 1];
  return tail === "[^]*" || tail === "(?:|/[^]*)";
}
__name(endsWithWildcard, "endsWithWildcard");
function covers(wildcard, target) {
  const last = wildcard.length - 1;
  for (let i = 0; i < last; i++) if (wildcard[i] !== target[i]) return false;
  return wildcard[last] === "[^]*" || target.length === last || target[last] === "/";
}
__name(covers, "covers");
var RegExpRouter = class {
  static {
    __name(this, "RegExpRouter");
  }
  name = "RegExpRouter";
  #handlers;
  #tries;
  constructor() {
    this.#handlers = { ["ALL"]: [] };
    this.#tries = { ["ALL"]: new Trie() };
  }
  #insertPath(method, path) {
    try {
      this.#tries[method].insert(path, !/\*|\/:/.test(path));
    } catch (e) {
      throw e === PATH_ERROR ? new UnsupportedPathError(path) : e;
    }
  }
  add(method, path, handler) {
    const handlers = this.#handlers;
    if (!handlers) throw new Error(MESSAGE_MATCHER_IS_ALREADY_BUILT);
    const tries = this.#tries;
    if (!handlers[method]) {
      tries[method] = new Trie();
      handlers[method] = [...handlers["ALL"]];
      for (const p in tries["ALL"].paths) this.#insertPath(method, p);
    }
    if (path === "/*") path = "*";
    const methods = method === "ALL" ? Object.keys(handlers) : [method];
    const paths = checkOptionalParameter(path) || [path];
    for (const path2 of paths) for (const m of methods) {
      if (!tries[m].paths[path2]) this.#insertPath(m, path2);
      handlers[m].push([handler, path2]);
    }
  }
  match = match;
  buildAllMatchers() {
    const matchers = createNullObject();
    for (const method of Object.keys(this.#handlers)) matchers[method] = this.#buildMatcher(method);
    this.#handlers = this.#tries = void 0;
    return matchers;
  }
  #buildMatcher(method) {
    const handlers = this.#handlers[method];
    const trie = this.#tries[method];
    const staticMap = createNullObject();
    const handlerData = [];
    const [regexp, indexReplacementMap, paramReplacementMap] = trie.buildRegExp();
    const own = createNullObject();
    const entries = handlers.map(([h, p], i) => {
      (own[p] ??= []).push(i);
      return [h, trie.paths[p][1].reduceRight((map, [key, varIndex]) => {
        map[key] = paramReplacementMap[varIndex];
        return map;
      }, createNullObject())];
    });
    const wildcards = Object.keys(own).filter((p) => endsWithWildcard(trie.paths[p][2]));
    for (const path in trie.paths) {
      const [index, , keys] = trie.paths[path];
      const indexes = [...own[path]];
      for (const p of wildcards) if (p !== path && covers(trie.paths[p][2], keys)) indexes.push(...own[p]);
      const data = indexes.sort((a, b) => a - b).map((i) => entries[i]);
      if (index === -1) {
        const last = Math.max(-1, ...data.flatMap(([, map]) => Object.values(map)));
        staticMap[path] = [data, last === -1 ? emptyParam : path.match(regexp).slice(0, last + 1)];
      } else handlerData[index] = data;
    }
    return [
      regexp,
      indexReplacementMap.map((i) => handlerData[i]),
      staticMap
    ];
  }
};

// ../../../work/main/node_modules/hono/dist/router/smart-router/router.js
var SmartRouter = class {
  static {
    __name(this, "SmartRouter");
  }
  name = "SmartRouter";
  #routers = [];
  #routes = [];
  constructor(init) {
    this.#routers = init.routers;
  }
  add(method, path, handler) {
    if (!this.#routes) throw new Error(MESSAGE_MATCHER_IS_ALREADY_BUILT);
    this.#routes.push([
      method,
      path,
      handler
    ]);
  }
  match(method, path) {
    if (!this.#routes) throw new Error("Fatal error");
    const routers = this.#routers;
    const routes2 = this.#routes;
    const len = routers.length;
    let i = 0;
    let res;
    for (; i < len; i++) {
      const router = routers[i];
      try {
        for (let i2 = 0, len2 = routes2.length; i2 < len2; i2++) router.add(...routes2[i2]);
        res = router.match(method, path);
      } catch (e) {
        if (e instanceof UnsupportedPathError) continue;
        throw e;
      }
      this.match = router.match.bind(router);
      this.#routers = [router];
      this.#routes = void 0;
      break;
    }
    if (i === len) throw new Error("Fatal error");
    this.name = `SmartRouter + ${this.activeRouter.name}`;
    return res;
  }
  get activeRouter() {
    if (this.#routes || this.#routers.length !== 1) throw new Error("No active router has been determined yet.");
    return this.#routers[0];
  }
};

// ../../../work/main/node_modules/hono/dist/router/trie-router/node.js
var emptyParams = createNullObject();
var order = 0;
var Node3 = class Node4 {
  static {
    __name(this, "Node");
  }
  #methods = [];
  #children = createNullObject();
  #patterns = [];
  #pattern;
  #params = emptyParams;
  insert(method, path, handler) {
    let curNode = this;
    const parts2 = splitRoutingPath(path);
    const possibleKeys = /* @__PURE__ */ new Set();
    let i = 0;
    for (const p of parts2) {
      const nextP = parts2[++i];
      const pattern = getPattern(p, nextP) || (nextP === void 0 && p && p.indexOf("*") === p.length - 1 ? p : null);
      const isParam = Array.isArray(pattern);
      const key = isParam ? pattern[0] : pattern || p;
      const child = curNode.#children[key] ||= new Node4();
      if (pattern && !child.#pattern) {
        child.#pattern = pattern;
        curNode.#patterns.push(child);
      }
      curNode = child;
      if (isParam) possibleKeys.add(pattern[1]);
    }
    curNode.#methods.push({ [method]: {
      handler,
      possibleKeys: [...possibleKeys],
      score: ++order
    } });
  }
  #pushHandlerSets(handlerSets, node, method, nodeParams, params) {
    for (let i = 0, len = node.#methods.length; i < len; i++) {
      const m = node.#methods[i];
      const handlerSet = m[method] || m["ALL"];
      if (handlerSet) {
        handlerSet.params = createNullObject();
        handlerSets.push(handlerSet);
        for (let i2 = 0, len2 = handlerSet.possibleKeys.length; i2 < len2; i2++) {
          const key = handlerSet.possibleKeys[i2];
          handlerSet.params[key] = params?.[key] && !i2 ? params[key] : nodeParams[key] ?? params?.[key];
        }
      }
    }
  }
  search(method, path) {
    const handlerSets = [];
    this.#params = emptyParams;
    let curNodes = [this];
    const parts2 = splitPath(path);
    const curNodesQueue = [];
    const len = parts2.length;
    let partOffsets = null;
    for (let i = 0; i < len; i++) {
      const part = parts2[i];
      const isLast = i === len - 1;
      const tempNodes = [];
      for (let j = 0, len2 = curNodes.length; j < len2; j++) {
        const node = curNodes[j];
        const nextNode = node.#children[part];
        if (nextNode) {
          nextNode.#params = node.#params;
          if (isLast) {
            if (nextNode.#children["*"]) this.#pushHandlerSets(handlerSets, nextNode.#children["*"], method, node.#params);
            this.#pushHandlerSets(handlerSets, nextNode, method, node.#params);
          } else tempNodes.push(nextNode);
        }
        for (const child of node.#patterns) {
          const pattern = child.#pattern;
          const params = node.#params === emptyParams ? {} : { ...node.#params };
          if (typeof pattern === "string") {
            if (pattern === "*" || part.startsWith(pattern.slice(0, -1))) {
              this.#pushHandlerSets(handlerSets, child, method, node.#params);
              if (pattern === "*") {
                child.#params = params;
                tempNodes.push(child);
              }
            }
            continue;
          }
          const [, name, matcher] = pattern;
          if (!part && matcher === true) continue;
          if (matcher !== true) {
            if (!partOffsets) {
              partOffsets = [];
              let offset = path[0] === "/" ? 1 : 0;
              for (let p = 0; p < len; p++) {
                partOffsets[p] = offset;
                offset += parts2[p].length + 1;
              }
            }
            const restPathString = path.slice(partOffsets[i]);
            const m = matcher.exec(restPathString);
            if (m) {
              if (!Object.hasOwn(params, name)) params[name] = m[0];
              this.#pushHandlerSets(handlerSets, child, method, node.#params, params);
              if (m[0].length === restPathString.length && child.#children["*"]) this.#pushHandlerSets(handlerSets, child.#children["*"], method, node.#params, params);
              for (const _ in child.#children) {
                child.#params = params;
                const componentCount = m[0].match(/\//g)?.length ?? 0;
                (curNodesQueue[componentCount] ||= []).push(child);
                break;
              }
              continue;
            }
          }
          if (matcher === true || matcher.test(part)) {
            if (!Object.hasOwn(params, name)) params[name] = part;
            if (isLast) {
              this.#pushHandlerSets(handlerSets, child, method, params, node.#params);
              if (child.#children["*"]) this.#pushHandlerSets(handlerSets, child.#children["*"], method, params, node.#params);
            } else {
              child.#params = params;
              tempNodes.push(child);
            }
          }
        }
      }
      const shifted = curNodesQueue.shift();
      curNodes = shifted ? tempNodes.concat(shifted) : tempNodes;
    }
    if (handlerSets[1]) handlerSets.sort((a, b) => {
      return a.score - b.score;
    });
    return [handlerSets.map(({ handler, params }) => [handler, params])];
  }
};

// ../../../work/main/node_modules/hono/dist/router/trie-router/router.js
var TrieRouter = class {
  static {
    __name(this, "TrieRouter");
  }
  name = "TrieRouter";
  #node = new Node3();
  add(method, path, handler) {
    for (const result of checkOptionalParameter(path) || [path]) this.#node.insert(method, result, handler);
  }
  match(method, path) {
    return this.#node.search(method, path);
  }
};

// ../../../work/main/node_modules/hono/dist/hono.js
var Hono3 = class extends Hono {
  static {
    __name(this, "Hono");
  }
  /**
  * Creates an instance of the Hono class.
  *
  * @param options - Optional configuration options for the Hono instance.
  */
  constructor(options = {}) {
    super(options);
    this.router = options.router ?? new SmartRouter({ routers: [new RegExpRouter(), new TrieRouter()] });
  }
};

// src/api/examples.ts
var EXAMPLE_RECEIPT_ID = "6571a4f0c8a5b2d1e3f40a11";
var EXAMPLE_TRANSFER_ID = "01JDQ3ZK6Y8N4W5X2V7T9R1M0B";
var EXAMPLE_EVENT_ID = "evt_01JDQ3ZK6Y8N4W5X2V7T9R1M0C";
var EXAMPLE_REQUEST_ID = "3f1c2a9e-7b4d-4e8a-9c1f-2d6b8e0a5f13";
var CREATED = 17953344e5;
var PAID = 179533446e4;
var CANCELLED = 179533452e4;
var MERCHANT = {
  merchant_id: 1001,
  merchant_name: "Sandbox Mobile",
  category_id: 1,
  category_name: "Mobile operators",
  logo_url: "https://sandbox.upstream.invalid/logos/1001.png",
  min_amount: 1e5,
  max_amount: 5e8
};
var SALE_OFD = {
  id: "5f039517-5692-4e93-b3c8-1d9a1fc23795",
  code: 0,
  message: "accepted",
  terminalId: "EZ000000000312",
  receiptId: 534526,
  time: "20261122004100",
  fiscalSign: "987796477570",
  qrCodeUrl: "https://ofd.soliq.uz/check?t=EZ000000000312&r=534526&c=20261122004100&s=987796477570"
};
var SALE_DETAILS = {
  tin: "301234567",
  spic: "10305001001000000",
  vatRate: 12,
  label: "Sandbox Mobile",
  packageCode: "1495381",
  type: "Sale",
  merchantInfo: { name: "Sandbox Mobile", tin: "301234567", address: "Tashkent, Amir Temur 1" },
  items: [
    {
      title: "Mobile top-up",
      unit_price: 15e5,
      count: 1,
      spic: "10305001001000000",
      pinfl: "",
      tin: "301234567",
      package_code: "1495381",
      units: 1,
      vat_percent: 12,
      discount: 0
    }
  ]
};
var REFUND_OFD = {
  id: "a14a0d9c-ed98-421f-9ec5-057700fca5f6",
  code: 0,
  message: "accepted",
  terminalId: "EZ000000000312",
  receiptId: 4176178,
  time: "2026-11-22T00:42:00.000Z",
  fiscalSign: "245977760765",
  qrCodeUrl: "https://ofd.soliq.uz/check?t=EZ000000000312&r=4176178&c=2026-11-22T00:42:00.000Z&s=245977760765",
  partnerFiscaliztionUrl: `https://sandbox.upstream.invalid/fiscal/${EXAMPLE_RECEIPT_ID}/refund`,
  tin: "301234567",
  spic: "10305001001000000",
  vatRate: 12,
  label: "Sandbox Mobile",
  packageCode: "1495381",
  type: "Refund",
  merchantInfo: { tin: "301234567", pinfl: "" },
  items: [{ name: "Mobile top-up", price: 15e5, quantity: 1, sum: 15e5 }]
};
var RECEIPT_CREATED = {
  tid: "order-2026-0001",
  id: EXAMPLE_RECEIPT_ID,
  state: 0,
  create_date: CREATED,
  pay_date: 0,
  cancel_date: 0,
  error: null,
  type: 1,
  description: "Mobile top-up",
  merchant: MERCHANT,
  account: [{ key: "phone", value: "998901234567" }],
  ofd: null,
  amount: 15e5,
  init_amount: 0,
  currency: 860,
  commission: 0,
  is_verify: true,
  rrn: null,
  card_number: null
};
var RECEIPT_PAID = {
  ...RECEIPT_CREATED,
  state: 4,
  pay_date: PAID,
  ofd: { ...SALE_OFD, ...SALE_DETAILS },
  rrn: "342030662739",
  card_number: "860049******0011"
};
var RECEIPT_HELD = { ...RECEIPT_CREATED, state: 5, rrn: "342030662739", card_number: "860049******0011" };
var RECEIPT_CANCELLED = { ...RECEIPT_PAID, state: 21, cancel_date: CANCELLED, ofd: REFUND_OFD };
var REDUCED_RECEIPT_PAID = (() => {
  const { cancel_date: _c, is_verify: _v, rrn: _r, card_number: _n, ...rest } = RECEIPT_PAID;
  return { ...rest, error: "", merchant: { ...MERCHANT, fields: [] }, ofd: SALE_OFD };
})();
var AUTHORIZED = { id: EXAMPLE_RECEIPT_ID, sent: true, phone: "+998 90 *** ** 67", wait: 6e4 };
var AUTHORIZED_ANONYMOUS = { ...AUTHORIZED, phone: "+998 93 *** ** 07" };
var TRANSFER_CREATED = {
  tid: "transfer-2026-0001",
  receipt_id: EXAMPLE_TRANSFER_ID,
  description: "Card transfer to 986000******0018",
  state: 0,
  type: 6,
  created_date: CREATED,
  pay_date: null,
  cancel_date: null,
  sender: {
    masked_pan: "860049******0011",
    holder_name: "SANDBOX OK",
    amount: 1507500,
    currency: 860,
    commission: 7500,
    phone: "+998 90 *** ** 67"
  },
  receiver: { masked_pan: "986000******0018", holder_name: "SANDBOX RECEIVER", amount: 15e5, currency: 860, commission: 0, phone: null },
  error: "",
  ofd: null,
  is_verify: true
};
var TRANSFER_PAID = { ...TRANSFER_CREATED, state: 4, pay_date: PAID };
var FISCAL_PENDING_PAGE = {
  receipts: [{ id: EXAMPLE_RECEIPT_ID, tid: "order-2026-0001", amount: 15e5, state: 4, since: PAID, reads: 1 }],
  has_more: false
};
var AUDIT_TRAIL = {
  id: EXAMPLE_RECEIPT_ID,
  kind: "receipt",
  owner: "partner",
  entries: [
    { at: CREATED, op: "create", actor: "partner", request_id: "a532ca57-82f1-476e-847e-e5602f5b0aef", outcome: "ok", state: 0 },
    { at: CREATED + 3e4, op: "authorize", actor: "partner", request_id: "73fa781c-89cc-450d-97a5-2423795f52cd", outcome: "ok", state: 0 },
    { at: PAID, op: "pay", actor: "partner", request_id: "20c816c4-ac75-4952-a16b-b67dfcc2f9e4", outcome: "ok", state: 4 }
  ]
};
var AUDIT_SEARCH_PAGE = {
  entries: [
    {
      id: `r:${EXAMPLE_RECEIPT_ID}:${CREATED}:0`,
      at: CREATED,
      source: "record",
      op: "create",
      actor: "partner",
      request_id: "a532ca57-82f1-476e-847e-e5602f5b0aef",
      outcome: "ok",
      state: 0,
      kind: "receipt",
      receipt_id: EXAMPLE_RECEIPT_ID,
      detail: { tid: "order-2026-0001", amount: 15e5, merchant_id: 1001, account: [{ key: "phone", value: "998901234567" }] }
    },
    {
      id: `r:${EXAMPLE_RECEIPT_ID}:${PAID}:0`,
      at: PAID,
      source: "record",
      op: "pay",
      actor: "partner",
      request_id: "20c816c4-ac75-4952-a16b-b67dfcc2f9e4",
      outcome: "ok",
      state: 4,
      kind: "receipt",
      receipt_id: EXAMPLE_RECEIPT_ID
    }
  ],
  has_more: false
};

// src/errors/error-codes.ts
var LANGUAGES = ["en", "uz", "uz-Cyrl", "ru"];
var APP_ERROR = {
  en: "Something went wrong in the app. Please try again later or contact support.",
  uz: "Ilovada xatolik yuz berdi. Keyinroq qayta urinib ko\u02BBring yoki qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
  "uz-Cyrl": "\u0418\u043B\u043E\u0432\u0430\u0434\u0430 \u0445\u0430\u0442\u043E\u043B\u0438\u043A \u044E\u0437 \u0431\u0435\u0440\u0434\u0438. \u041A\u0435\u0439\u0438\u043D\u0440\u043E\u049B \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433 \u0451\u043A\u0438 \u049B\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
  ru: "\u0412 \u043F\u0440\u0438\u043B\u043E\u0436\u0435\u043D\u0438\u0438 \u043F\u0440\u043E\u0438\u0437\u043E\u0448\u043B\u0430 \u043E\u0448\u0438\u0431\u043A\u0430. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u043F\u043E\u0437\u0436\u0435 \u0438\u043B\u0438 \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
};
var MAY_HAVE_GONE_THROUGH = {
  en: "The payment may have gone through: we are checking it. Do not pay again; check the payment status in a few minutes.",
  uz: "To\u02BBlov amalga oshgan bo\u02BBlishi mumkin: biz uni tekshiryapmiz. Qayta to\u02BBlamang, bir necha daqiqadan so\u02BBng to\u02BBlov holatini tekshiring.",
  "uz-Cyrl": "\u0422\u045E\u043B\u043E\u0432 \u0430\u043C\u0430\u043B\u0433\u0430 \u043E\u0448\u0433\u0430\u043D \u0431\u045E\u043B\u0438\u0448\u0438 \u043C\u0443\u043C\u043A\u0438\u043D: \u0431\u0438\u0437 \u0443\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u044F\u043F\u043C\u0438\u0437. \u049A\u0430\u0439\u0442\u0430 \u0442\u045E\u043B\u0430\u043C\u0430\u043D\u0433, \u0431\u0438\u0440 \u043D\u0435\u0447\u0430 \u0434\u0430\u049B\u0438\u049B\u0430\u0434\u0430\u043D \u0441\u045E\u043D\u0433 \u0442\u045E\u043B\u043E\u0432 \u04B3\u043E\u043B\u0430\u0442\u0438\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u0438\u043D\u0433.",
  ru: "\u041F\u043B\u0430\u0442\u0451\u0436 \u043C\u043E\u0433 \u043F\u0440\u043E\u0439\u0442\u0438: \u043C\u044B \u0435\u0433\u043E \u043F\u0440\u043E\u0432\u0435\u0440\u044F\u0435\u043C. \u041D\u0435 \u043E\u043F\u043B\u0430\u0447\u0438\u0432\u0430\u0439\u0442\u0435 \u043F\u043E\u0432\u0442\u043E\u0440\u043D\u043E, \u043F\u0440\u043E\u0432\u0435\u0440\u044C\u0442\u0435 \u0441\u0442\u0430\u0442\u0443\u0441 \u043F\u043B\u0430\u0442\u0435\u0436\u0430 \u0447\u0435\u0440\u0435\u0437 \u043D\u0435\u0441\u043A\u043E\u043B\u044C\u043A\u043E \u043C\u0438\u043D\u0443\u0442."
};
var DECLINE_REASONS = {
  insufficient_funds: {
    en: "There is not enough money on the card. Top up the card or use another one.",
    uz: "Kartada mablag\u02BB yetarli emas. Kartani to\u02BBldiring yoki boshqa kartadan foydalaning.",
    "uz-Cyrl": "\u041A\u0430\u0440\u0442\u0430\u0434\u0430 \u043C\u0430\u0431\u043B\u0430\u0493 \u0435\u0442\u0430\u0440\u043B\u0438 \u044D\u043C\u0430\u0441. \u041A\u0430\u0440\u0442\u0430\u043D\u0438 \u0442\u045E\u043B\u0434\u0438\u0440\u0438\u043D\u0433 \u0451\u043A\u0438 \u0431\u043E\u0448\u049B\u0430 \u043A\u0430\u0440\u0442\u0430\u0434\u0430\u043D \u0444\u043E\u0439\u0434\u0430\u043B\u0430\u043D\u0438\u043D\u0433.",
    ru: "\u041D\u0435\u0434\u043E\u0441\u0442\u0430\u0442\u043E\u0447\u043D\u043E \u0441\u0440\u0435\u0434\u0441\u0442\u0432 \u043D\u0430 \u043A\u0430\u0440\u0442\u0435. \u041F\u043E\u043F\u043E\u043B\u043D\u0438\u0442\u0435 \u043A\u0430\u0440\u0442\u0443 \u0438\u043B\u0438 \u0438\u0441\u043F\u043E\u043B\u044C\u0437\u0443\u0439\u0442\u0435 \u0434\u0440\u0443\u0433\u0443\u044E."
  },
  receiver_unavailable: {
    en: "The recipient's card cannot accept this transfer. Check the card number or send the transfer to another card.",
    uz: "Qabul qiluvchining kartasi bu o\u02BBtkazmani qabul qila olmaydi. Karta raqamini tekshiring yoki o\u02BBtkazmani boshqa kartaga yuboring.",
    "uz-Cyrl": "\u049A\u0430\u0431\u0443\u043B \u049B\u0438\u043B\u0443\u0432\u0447\u0438\u043D\u0438\u043D\u0433 \u043A\u0430\u0440\u0442\u0430\u0441\u0438 \u0431\u0443 \u045E\u0442\u043A\u0430\u0437\u043C\u0430\u043D\u0438 \u049B\u0430\u0431\u0443\u043B \u049B\u0438\u043B\u0430 \u043E\u043B\u043C\u0430\u0439\u0434\u0438. \u041A\u0430\u0440\u0442\u0430 \u0440\u0430\u049B\u0430\u043C\u0438\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u0438\u043D\u0433 \u0451\u043A\u0438 \u045E\u0442\u043A\u0430\u0437\u043C\u0430\u043D\u0438 \u0431\u043E\u0448\u049B\u0430 \u043A\u0430\u0440\u0442\u0430\u0433\u0430 \u044E\u0431\u043E\u0440\u0438\u043D\u0433.",
    ru: "\u041A\u0430\u0440\u0442\u0430 \u043F\u043E\u043B\u0443\u0447\u0430\u0442\u0435\u043B\u044F \u043D\u0435 \u043C\u043E\u0436\u0435\u0442 \u043F\u0440\u0438\u043D\u044F\u0442\u044C \u044D\u0442\u043E\u0442 \u043F\u0435\u0440\u0435\u0432\u043E\u0434. \u041F\u0440\u043E\u0432\u0435\u0440\u044C\u0442\u0435 \u043D\u043E\u043C\u0435\u0440 \u043A\u0430\u0440\u0442\u044B \u0438\u043B\u0438 \u043E\u0442\u043F\u0440\u0430\u0432\u044C\u0442\u0435 \u043F\u0435\u0440\u0435\u0432\u043E\u0434 \u043D\u0430 \u0434\u0440\u0443\u0433\u0443\u044E \u043A\u0430\u0440\u0442\u0443."
  },
  declined: {
    en: "The bank declined this operation with the card. Please use another card or contact your bank.",
    uz: "Bank bu karta bo\u02BByicha amalni rad etdi. Boshqa kartadan foydalaning yoki bankingizga murojaat qiling.",
    "uz-Cyrl": "\u0411\u0430\u043D\u043A \u0431\u0443 \u043A\u0430\u0440\u0442\u0430 \u0431\u045E\u0439\u0438\u0447\u0430 \u0430\u043C\u0430\u043B\u043D\u0438 \u0440\u0430\u0434 \u044D\u0442\u0434\u0438. \u0411\u043E\u0448\u049B\u0430 \u043A\u0430\u0440\u0442\u0430\u0434\u0430\u043D \u0444\u043E\u0439\u0434\u0430\u043B\u0430\u043D\u0438\u043D\u0433 \u0451\u043A\u0438 \u0431\u0430\u043D\u043A\u0438\u043D\u0433\u0438\u0437\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
    ru: "\u0411\u0430\u043D\u043A \u043E\u0442\u043A\u043B\u043E\u043D\u0438\u043B \u043E\u043F\u0435\u0440\u0430\u0446\u0438\u044E \u043F\u043E \u044D\u0442\u043E\u0439 \u043A\u0430\u0440\u0442\u0435. \u0418\u0441\u043F\u043E\u043B\u044C\u0437\u0443\u0439\u0442\u0435 \u0434\u0440\u0443\u0433\u0443\u044E \u043A\u0430\u0440\u0442\u0443 \u0438\u043B\u0438 \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u0432\u043E\u0439 \u0431\u0430\u043D\u043A."
  }
};
var DECLINE_REASON_NAMES = Object.keys(DECLINE_REASONS);
var ERROR_CODES = {
  invalid_json: {
    status: 400,
    meaning: "The body does not parse as JSON.",
    example: { message: "The request body is not valid JSON at line 2, column 18." },
    user_message: APP_ERROR
  },
  invalid_request: {
    status: 400,
    meaning: "A field is missing, of the wrong type, out of its rule or not one the operation defines; or an unknown merchant or rate (`details` lists what).",
    example: {
      message: "The request body does not match the schema.",
      details: [{ path: "amount", message: "amount must be an integer number of tiyin" }]
    },
    user_message: {
      en: "Some of the details could not be accepted. Please check what you entered and try again, or contact support if it happens again.",
      uz: "Ba\u02BCzi ma\u02BClumotlar qabul qilinmadi. Kiritilgan ma\u02BClumotlarni tekshirib, qayta urinib ko\u02BBring. Xatolik takrorlansa, qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0411\u0430\u044A\u0437\u0438 \u043C\u0430\u044A\u043B\u0443\u043C\u043E\u0442\u043B\u0430\u0440 \u049B\u0430\u0431\u0443\u043B \u049B\u0438\u043B\u0438\u043D\u043C\u0430\u0434\u0438. \u041A\u0438\u0440\u0438\u0442\u0438\u043B\u0433\u0430\u043D \u043C\u0430\u044A\u043B\u0443\u043C\u043E\u0442\u043B\u0430\u0440\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u0438\u0431, \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433. \u0425\u0430\u0442\u043E\u043B\u0438\u043A \u0442\u0430\u043A\u0440\u043E\u0440\u043B\u0430\u043D\u0441\u0430, \u049B\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u041D\u0435\u043A\u043E\u0442\u043E\u0440\u044B\u0435 \u0434\u0430\u043D\u043D\u044B\u0435 \u043D\u0435 \u043F\u0440\u0438\u043D\u044F\u0442\u044B. \u041F\u0440\u043E\u0432\u0435\u0440\u044C\u0442\u0435 \u0432\u0432\u0435\u0434\u0451\u043D\u043D\u044B\u0435 \u0434\u0430\u043D\u043D\u044B\u0435 \u0438 \u043F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u0435\u0449\u0451 \u0440\u0430\u0437. \u0415\u0441\u043B\u0438 \u043E\u0448\u0438\u0431\u043A\u0430 \u043F\u043E\u0432\u0442\u043E\u0440\u0438\u0442\u0441\u044F, \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  otp_required: {
    status: 400,
    meaning: "Pay without an OTP where one is needed; not a guess.",
    example: { message: "This payment needs the OTP sent to the card owner (authorize first)." },
    user_message: {
      en: "Enter the confirmation code from the SMS to complete the payment.",
      uz: "To\u02BBlovni yakunlash uchun SMS orqali kelgan tasdiqlash kodini kiriting.",
      "uz-Cyrl": "\u0422\u045E\u043B\u043E\u0432\u043D\u0438 \u044F\u043A\u0443\u043D\u043B\u0430\u0448 \u0443\u0447\u0443\u043D SMS \u043E\u0440\u049B\u0430\u043B\u0438 \u043A\u0435\u043B\u0433\u0430\u043D \u0442\u0430\u0441\u0434\u0438\u049B\u043B\u0430\u0448 \u043A\u043E\u0434\u0438\u043D\u0438 \u043A\u0438\u0440\u0438\u0442\u0438\u043D\u0433.",
      ru: "\u0427\u0442\u043E\u0431\u044B \u0437\u0430\u0432\u0435\u0440\u0448\u0438\u0442\u044C \u043F\u043B\u0430\u0442\u0451\u0436, \u0432\u0432\u0435\u0434\u0438\u0442\u0435 \u043A\u043E\u0434 \u043F\u043E\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043D\u0438\u044F \u0438\u0437 SMS."
    }
  },
  unauthorized: {
    status: 401,
    meaning: "No credentials, or ones that do not verify (`WWW-Authenticate`).",
    example: { message: "Send Authorization: Bearer <partner server key or user JWT>." },
    user_message: {
      en: "Your sign-in could not be confirmed. Please sign in to the app again.",
      uz: "Kirishingizni tasdiqlab bo\u02BBlmadi. Iltimos, ilovaga qaytadan kiring.",
      "uz-Cyrl": "\u041A\u0438\u0440\u0438\u0448\u0438\u043D\u0433\u0438\u0437\u043D\u0438 \u0442\u0430\u0441\u0434\u0438\u049B\u043B\u0430\u0431 \u0431\u045E\u043B\u043C\u0430\u0434\u0438. \u0418\u043B\u0442\u0438\u043C\u043E\u0441, \u0438\u043B\u043E\u0432\u0430\u0433\u0430 \u049B\u0430\u0439\u0442\u0430\u0434\u0430\u043D \u043A\u0438\u0440\u0438\u043D\u0433.",
      ru: "\u041D\u0435 \u0443\u0434\u0430\u043B\u043E\u0441\u044C \u043F\u043E\u0434\u0442\u0432\u0435\u0440\u0434\u0438\u0442\u044C \u0432\u0445\u043E\u0434. \u041F\u043E\u0436\u0430\u043B\u0443\u0439\u0441\u0442\u0430, \u0432\u043E\u0439\u0434\u0438\u0442\u0435 \u0432 \u043F\u0440\u0438\u043B\u043E\u0436\u0435\u043D\u0438\u0435 \u0437\u0430\u043D\u043E\u0432\u043E."
    }
  },
  card_declined: {
    status: 402,
    meaning: "The card was declined; `decline_reason` says why.",
    example: { message: "Card declined: insufficient funds.", decline_reason: "insufficient_funds", upstream_code: "INSUFFICIENT_FUNDS" },
    user_message: {
      en: "Your card was declined. Please use another card or contact your bank.",
      uz: "Karta rad etildi. Boshqa kartadan foydalaning yoki bankingizga murojaat qiling.",
      "uz-Cyrl": "\u041A\u0430\u0440\u0442\u0430 \u0440\u0430\u0434 \u044D\u0442\u0438\u043B\u0434\u0438. \u0411\u043E\u0448\u049B\u0430 \u043A\u0430\u0440\u0442\u0430\u0434\u0430\u043D \u0444\u043E\u0439\u0434\u0430\u043B\u0430\u043D\u0438\u043D\u0433 \u0451\u043A\u0438 \u0431\u0430\u043D\u043A\u0438\u043D\u0433\u0438\u0437\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u041A\u0430\u0440\u0442\u0430 \u043E\u0442\u043A\u043B\u043E\u043D\u0435\u043D\u0430. \u0418\u0441\u043F\u043E\u043B\u044C\u0437\u0443\u0439\u0442\u0435 \u0434\u0440\u0443\u0433\u0443\u044E \u043A\u0430\u0440\u0442\u0443 \u0438\u043B\u0438 \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u0432\u043E\u0439 \u0431\u0430\u043D\u043A."
    }
  },
  forbidden: {
    status: 403,
    meaning: "The caller may not do this: a user on a partner-only operation, or the service refuses the partner this cancel.",
    example: { message: "This operation is for the partner backend's server key; users may not call it." },
    user_message: {
      en: "This action is not available to you. Please contact support.",
      uz: "Bu amalni bajarishga ruxsat yo\u02BBq. Qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0411\u0443 \u0430\u043C\u0430\u043B\u043D\u0438 \u0431\u0430\u0436\u0430\u0440\u0438\u0448\u0433\u0430 \u0440\u0443\u0445\u0441\u0430\u0442 \u0439\u045E\u049B. \u049A\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u042D\u0442\u043E \u0434\u0435\u0439\u0441\u0442\u0432\u0438\u0435 \u0432\u0430\u043C \u043D\u0435\u0434\u043E\u0441\u0442\u0443\u043F\u043D\u043E. \u041E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  hold_not_enabled: {
    status: 403,
    meaning: "A create with `is_hold`, or hold-confirm, where the deployment has no hold function.",
    example: { message: "The hold function is not enabled in this deployment." },
    user_message: {
      en: "This type of payment is not available. Please contact support.",
      uz: "Bu turdagi to\u02BBlov mavjud emas. Qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u0443\u0440\u0434\u0430\u0433\u0438 \u0442\u045E\u043B\u043E\u0432 \u043C\u0430\u0432\u0436\u0443\u0434 \u044D\u043C\u0430\u0441. \u049A\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u042D\u0442\u043E\u0442 \u0432\u0438\u0434 \u043F\u043B\u0430\u0442\u0435\u0436\u0430 \u043D\u0435\u0434\u043E\u0441\u0442\u0443\u043F\u0435\u043D. \u041E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  receipt_not_found: {
    status: 404,
    meaning: "No such receipt, transfer or tid for this caller (another user's looks the same).",
    example: { message: "No such receipt." },
    user_message: {
      en: "This payment was not found. Please start the payment again.",
      uz: "To\u02BBlov topilmadi. Iltimos, to\u02BBlovni qaytadan boshlang.",
      "uz-Cyrl": "\u0422\u045E\u043B\u043E\u0432 \u0442\u043E\u043F\u0438\u043B\u043C\u0430\u0434\u0438. \u0418\u043B\u0442\u0438\u043C\u043E\u0441, \u0442\u045E\u043B\u043E\u0432\u043D\u0438 \u049B\u0430\u0439\u0442\u0430\u0434\u0430\u043D \u0431\u043E\u0448\u043B\u0430\u043D\u0433.",
      ru: "\u041F\u043B\u0430\u0442\u0451\u0436 \u043D\u0435 \u043D\u0430\u0439\u0434\u0435\u043D. \u041F\u043E\u0436\u0430\u043B\u0443\u0439\u0441\u0442\u0430, \u043D\u0430\u0447\u043D\u0438\u0442\u0435 \u043E\u043F\u043B\u0430\u0442\u0443 \u0437\u0430\u043D\u043E\u0432\u043E."
    }
  },
  not_found: {
    status: 404,
    meaning: "No such path, or no such event id.",
    example: { message: "No event with this id." },
    user_message: APP_ERROR
  },
  method_not_allowed: {
    status: 405,
    meaning: "Another method than the path answers (`Allow` names it).",
    example: { message: "Partner operations are POST requests with a JSON body; GET is not allowed." },
    user_message: APP_ERROR
  },
  tid_conflict: {
    status: 409,
    meaning: "The tid is taken by a different body or the other kind, or its stored answer is older than 7 days (the message names the receipt to read).",
    example: {
      message: `This tid already created receipt ${EXAMPLE_RECEIPT_ID} with another body: read it with check-id or check-tid, or create with a new tid.`
    },
    user_message: {
      en: "This payment already exists with different details. Check your payment history before paying again, or contact support.",
      uz: "Bu to\u02BBlov boshqa ma\u02BClumotlar bilan allaqachon mavjud. Qayta to\u02BBlashdan oldin to\u02BBlovlar tarixini tekshiring yoki qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432 \u0431\u043E\u0448\u049B\u0430 \u043C\u0430\u044A\u043B\u0443\u043C\u043E\u0442\u043B\u0430\u0440 \u0431\u0438\u043B\u0430\u043D \u0430\u043B\u043B\u0430\u049B\u0430\u0447\u043E\u043D \u043C\u0430\u0432\u0436\u0443\u0434. \u049A\u0430\u0439\u0442\u0430 \u0442\u045E\u043B\u0430\u0448\u0434\u0430\u043D \u043E\u043B\u0434\u0438\u043D \u0442\u045E\u043B\u043E\u0432\u043B\u0430\u0440 \u0442\u0430\u0440\u0438\u0445\u0438\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u0438\u043D\u0433 \u0451\u043A\u0438 \u049B\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u042D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436 \u0443\u0436\u0435 \u0441\u0443\u0449\u0435\u0441\u0442\u0432\u0443\u0435\u0442 \u0441 \u0434\u0440\u0443\u0433\u0438\u043C\u0438 \u0434\u0430\u043D\u043D\u044B\u043C\u0438. \u041F\u0440\u0435\u0436\u0434\u0435 \u0447\u0435\u043C \u043F\u043B\u0430\u0442\u0438\u0442\u044C \u0441\u043D\u043E\u0432\u0430, \u043F\u0440\u043E\u0432\u0435\u0440\u044C\u0442\u0435 \u0438\u0441\u0442\u043E\u0440\u0438\u044E \u043F\u043B\u0430\u0442\u0435\u0436\u0435\u0439 \u0438\u043B\u0438 \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  tid_in_progress: {
    status: 409,
    meaning: "A create with this tid is still running; retry after `Retry-After`.",
    example: { message: "The create with this tid is still in flight." },
    user_message: {
      en: "This payment is still being created. Please wait a moment and try again.",
      uz: "To\u02BBlov hali yaratilmoqda. Biroz kutib, qayta urinib ko\u02BBring.",
      "uz-Cyrl": "\u0422\u045E\u043B\u043E\u0432 \u04B3\u0430\u043B\u0438 \u044F\u0440\u0430\u0442\u0438\u043B\u043C\u043E\u049B\u0434\u0430. \u0411\u0438\u0440\u043E\u0437 \u043A\u0443\u0442\u0438\u0431, \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433.",
      ru: "\u041F\u043B\u0430\u0442\u0451\u0436 \u0435\u0449\u0451 \u0441\u043E\u0437\u0434\u0430\u0451\u0442\u0441\u044F. \u041F\u043E\u0434\u043E\u0436\u0434\u0438\u0442\u0435 \u043D\u0435\u043C\u043D\u043E\u0433\u043E \u0438 \u043F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u0441\u043D\u043E\u0432\u0430."
    }
  },
  idempotency_key_reused: {
    status: 409,
    meaning: "This Idempotency-Key was used by the same caller for this operation on this record with another body (rule 11): use a new key.",
    example: { message: "This Idempotency-Key was used for another request on this receipt; use a new key for a new request." },
    user_message: APP_ERROR
  },
  operation_in_progress: {
    status: 409,
    meaning: "Another operation on this receipt or transfer is running; retry after `Retry-After`.",
    example: { message: "Another operation is in flight for this receipt." },
    user_message: {
      en: "This payment is already being processed. Please wait a moment and check its status before trying again.",
      uz: "Bu to\u02BBlov hozir amalga oshirilmoqda. Biroz kuting va qayta urinishdan oldin uning holatini tekshiring.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432 \u04B3\u043E\u0437\u0438\u0440 \u0430\u043C\u0430\u043B\u0433\u0430 \u043E\u0448\u0438\u0440\u0438\u043B\u043C\u043E\u049B\u0434\u0430. \u0411\u0438\u0440\u043E\u0437 \u043A\u0443\u0442\u0438\u043D\u0433 \u0432\u0430 \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0448\u0434\u0430\u043D \u043E\u043B\u0434\u0438\u043D \u0443\u043D\u0438\u043D\u0433 \u04B3\u043E\u043B\u0430\u0442\u0438\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u0438\u043D\u0433.",
      ru: "\u042D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436 \u0443\u0436\u0435 \u043E\u0431\u0440\u0430\u0431\u0430\u0442\u044B\u0432\u0430\u0435\u0442\u0441\u044F. \u041F\u043E\u0434\u043E\u0436\u0434\u0438\u0442\u0435 \u043D\u0435\u043C\u043D\u043E\u0433\u043E \u0438 \u043F\u0440\u043E\u0432\u0435\u0440\u044C\u0442\u0435 \u0435\u0433\u043E \u0441\u0442\u0430\u0442\u0443\u0441, \u043F\u0440\u0435\u0436\u0434\u0435 \u0447\u0435\u043C \u043F\u043E\u0432\u0442\u043E\u0440\u044F\u0442\u044C."
    }
  },
  receipt_cancelled: {
    status: 409,
    meaning: "The receipt or transfer is cancelled.",
    example: { message: "The receipt is cancelled.", upstream_code: "RECEIPT_CANCELLED" },
    user_message: {
      en: "This payment has been cancelled. If needed, start a new payment.",
      uz: "Bu to\u02BBlov bekor qilingan. Kerak bo\u02BBlsa, yangi to\u02BBlovni boshlang.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432 \u0431\u0435\u043A\u043E\u0440 \u049B\u0438\u043B\u0438\u043D\u0433\u0430\u043D. \u041A\u0435\u0440\u0430\u043A \u0431\u045E\u043B\u0441\u0430, \u044F\u043D\u0433\u0438 \u0442\u045E\u043B\u043E\u0432\u043D\u0438 \u0431\u043E\u0448\u043B\u0430\u043D\u0433.",
      ru: "\u042D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436 \u043E\u0442\u043C\u0435\u043D\u0451\u043D. \u041F\u0440\u0438 \u043D\u0435\u043E\u0431\u0445\u043E\u0434\u0438\u043C\u043E\u0441\u0442\u0438 \u043D\u0430\u0447\u043D\u0438\u0442\u0435 \u043D\u043E\u0432\u044B\u0439 \u043F\u043B\u0430\u0442\u0451\u0436."
    }
  },
  receipt_already_paid: {
    status: 409,
    meaning: "Pay of a receipt that is paid, held or awaiting the supplier.",
    example: { message: "The receipt is already paid.", upstream_code: "RECEIPT_ALREADY_PAID" },
    user_message: {
      en: "This payment has already been made. There is no need to pay again.",
      uz: "Bu to\u02BBlov allaqachon amalga oshirilgan. Qayta to\u02BBlash shart emas.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432 \u0430\u043B\u043B\u0430\u049B\u0430\u0447\u043E\u043D \u0430\u043C\u0430\u043B\u0433\u0430 \u043E\u0448\u0438\u0440\u0438\u043B\u0433\u0430\u043D. \u049A\u0430\u0439\u0442\u0430 \u0442\u045E\u043B\u0430\u0448 \u0448\u0430\u0440\u0442 \u044D\u043C\u0430\u0441.",
      ru: "\u042D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436 \u0443\u0436\u0435 \u043F\u0440\u043E\u0432\u0435\u0434\u0451\u043D. \u041F\u043E\u0432\u0442\u043E\u0440\u043D\u043E \u043E\u043F\u043B\u0430\u0447\u0438\u0432\u0430\u0442\u044C \u043D\u0435 \u043D\u0443\u0436\u043D\u043E."
    }
  },
  receipt_not_held: {
    status: 409,
    meaning: "Hold-confirm of a receipt that holds nothing.",
    example: { message: "The receipt holds no amount to confirm.", upstream_code: "RECEIPT_NOT_HELD" },
    user_message: {
      en: "There is no reserved amount to confirm for this payment. Please contact support.",
      uz: "Bu to\u02BBlov bo\u02BByicha tasdiqlanadigan band qilingan summa yo\u02BBq. Qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432 \u0431\u045E\u0439\u0438\u0447\u0430 \u0442\u0430\u0441\u0434\u0438\u049B\u043B\u0430\u043D\u0430\u0434\u0438\u0433\u0430\u043D \u0431\u0430\u043D\u0434 \u049B\u0438\u043B\u0438\u043D\u0433\u0430\u043D \u0441\u0443\u043C\u043C\u0430 \u0439\u045E\u049B. \u049A\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u041F\u043E \u044D\u0442\u043E\u043C\u0443 \u043F\u043B\u0430\u0442\u0435\u0436\u0443 \u043D\u0435\u0442 \u0437\u0430\u0431\u043B\u043E\u043A\u0438\u0440\u043E\u0432\u0430\u043D\u043D\u043E\u0439 \u0441\u0443\u043C\u043C\u044B \u0434\u043B\u044F \u043F\u043E\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043D\u0438\u044F. \u041E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  cancel_not_allowed: {
    status: 409,
    meaning: "Cancel in state 21 or 57, or for a QR merchant.",
    example: { message: "The payment service refuses to cancel this receipt.", upstream_code: "CANCEL_NOT_ALLOWED" },
    user_message: {
      en: "This payment can no longer be cancelled. Please contact support.",
      uz: "Bu to\u02BBlovni endi bekor qilib bo\u02BBlmaydi. Qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432\u043D\u0438 \u044D\u043D\u0434\u0438 \u0431\u0435\u043A\u043E\u0440 \u049B\u0438\u043B\u0438\u0431 \u0431\u045E\u043B\u043C\u0430\u0439\u0434\u0438. \u049A\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u042D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436 \u0443\u0436\u0435 \u043D\u0435\u043B\u044C\u0437\u044F \u043E\u0442\u043C\u0435\u043D\u0438\u0442\u044C. \u041E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  otp_attempts_exhausted: {
    status: 409,
    meaning: "The third failed OTP guess; every later pay of a transfer it closed answers this too.",
    example: {
      message: "Three wrong OTPs: the receipt is closed and takes no further code; the gateway cancels it with the payment service. Create a new receipt."
    },
    user_message: {
      en: "The confirmation code has been tried too many times, so this payment can no longer be completed. Please start a new payment.",
      uz: "Tasdiqlash kodi juda ko\u02BBp marta kiritildi, shu sababli bu to\u02BBlovni endi yakunlab bo\u02BBlmaydi. Yangi to\u02BBlovni boshlang.",
      "uz-Cyrl": "\u0422\u0430\u0441\u0434\u0438\u049B\u043B\u0430\u0448 \u043A\u043E\u0434\u0438 \u0436\u0443\u0434\u0430 \u043A\u045E\u043F \u043C\u0430\u0440\u0442\u0430 \u043A\u0438\u0440\u0438\u0442\u0438\u043B\u0434\u0438, \u0448\u0443 \u0441\u0430\u0431\u0430\u0431\u043B\u0438 \u0431\u0443 \u0442\u045E\u043B\u043E\u0432\u043D\u0438 \u044D\u043D\u0434\u0438 \u044F\u043A\u0443\u043D\u043B\u0430\u0431 \u0431\u045E\u043B\u043C\u0430\u0439\u0434\u0438. \u042F\u043D\u0433\u0438 \u0442\u045E\u043B\u043E\u0432\u043D\u0438 \u0431\u043E\u0448\u043B\u0430\u043D\u0433.",
      ru: "\u041A\u043E\u0434 \u043F\u043E\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043D\u0438\u044F \u0432\u0432\u043E\u0434\u0438\u043B\u0441\u044F \u0441\u043B\u0438\u0448\u043A\u043E\u043C \u043C\u043D\u043E\u0433\u043E \u0440\u0430\u0437, \u043F\u043E\u044D\u0442\u043E\u043C\u0443 \u044D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436 \u0431\u043E\u043B\u044C\u0448\u0435 \u043D\u0435\u043B\u044C\u0437\u044F \u0437\u0430\u0432\u0435\u0440\u0448\u0438\u0442\u044C. \u041D\u0430\u0447\u043D\u0438\u0442\u0435 \u043D\u043E\u0432\u044B\u0439 \u043F\u043B\u0430\u0442\u0451\u0436."
    }
  },
  receipt_expired: {
    status: 409,
    meaning: "Rule 12: the receipt or transfer expired (unpaid `RECEIPT_EXPIRY_HOURS` after its creation, or held and not confirmed within `HOLD_EXPIRY_DAYS`) and the gateway cancelled it or closed it at the edge; every operation on it but a read answers this. Create a new one.",
    example: { message: "The receipt expired unpaid and is cancelled; create a new one." },
    user_message: {
      en: "The time allowed for this payment has run out, so it can no longer be completed. Please start a new payment.",
      uz: "Bu to\u02BBlov uchun ajratilgan vaqt tugadi, shu sababli uni endi yakunlab bo\u02BBlmaydi. Yangi to\u02BBlovni boshlang.",
      "uz-Cyrl": "\u0411\u0443 \u0442\u045E\u043B\u043E\u0432 \u0443\u0447\u0443\u043D \u0430\u0436\u0440\u0430\u0442\u0438\u043B\u0433\u0430\u043D \u0432\u0430\u049B\u0442 \u0442\u0443\u0433\u0430\u0434\u0438, \u0448\u0443 \u0441\u0430\u0431\u0430\u0431\u043B\u0438 \u0443\u043D\u0438 \u044D\u043D\u0434\u0438 \u044F\u043A\u0443\u043D\u043B\u0430\u0431 \u0431\u045E\u043B\u043C\u0430\u0439\u0434\u0438. \u042F\u043D\u0433\u0438 \u0442\u045E\u043B\u043E\u0432\u043D\u0438 \u0431\u043E\u0448\u043B\u0430\u043D\u0433.",
      ru: "\u0412\u0440\u0435\u043C\u044F, \u043E\u0442\u0432\u0435\u0434\u0451\u043D\u043D\u043E\u0435 \u043D\u0430 \u044D\u0442\u043E\u0442 \u043F\u043B\u0430\u0442\u0451\u0436, \u0438\u0441\u0442\u0435\u043A\u043B\u043E, \u043F\u043E\u044D\u0442\u043E\u043C\u0443 \u0435\u0433\u043E \u0431\u043E\u043B\u044C\u0448\u0435 \u043D\u0435\u043B\u044C\u0437\u044F \u0437\u0430\u0432\u0435\u0440\u0448\u0438\u0442\u044C. \u041D\u0430\u0447\u043D\u0438\u0442\u0435 \u043D\u043E\u0432\u044B\u0439 \u043F\u043B\u0430\u0442\u0451\u0436."
    }
  },
  otp_expired: {
    status: 409,
    meaning: "No OTP was sent for this receipt, or it expired: call authorize again. Not a guess.",
    example: { message: "No OTP was sent for this receipt, or it expired: call authorize again. This did not count as a guess." },
    user_message: {
      en: "The confirmation code has expired or was not sent. Please request a new code.",
      uz: "Tasdiqlash kodining muddati tugagan yoki kod yuborilmagan. Yangi kod so\u02BBrang.",
      "uz-Cyrl": "\u0422\u0430\u0441\u0434\u0438\u049B\u043B\u0430\u0448 \u043A\u043E\u0434\u0438\u043D\u0438\u043D\u0433 \u043C\u0443\u0434\u0434\u0430\u0442\u0438 \u0442\u0443\u0433\u0430\u0433\u0430\u043D \u0451\u043A\u0438 \u043A\u043E\u0434 \u044E\u0431\u043E\u0440\u0438\u043B\u043C\u0430\u0433\u0430\u043D. \u042F\u043D\u0433\u0438 \u043A\u043E\u0434 \u0441\u045E\u0440\u0430\u043D\u0433.",
      ru: "\u0421\u0440\u043E\u043A \u0434\u0435\u0439\u0441\u0442\u0432\u0438\u044F \u043A\u043E\u0434\u0430 \u043F\u043E\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043D\u0438\u044F \u0438\u0441\u0442\u0451\u043A, \u0438\u043B\u0438 \u043A\u043E\u0434 \u043D\u0435 \u0431\u044B\u043B \u043E\u0442\u043F\u0440\u0430\u0432\u043B\u0435\u043D. \u0417\u0430\u043F\u0440\u043E\u0441\u0438\u0442\u0435 \u043D\u043E\u0432\u044B\u0439 \u043A\u043E\u0434."
    }
  },
  payload_too_large: {
    status: 413,
    meaning: "A body over 16 KiB.",
    example: { message: "Request bodies are limited to 16 KiB." },
    user_message: APP_ERROR
  },
  unsupported_media_type: {
    status: 415,
    meaning: "A body that is not `application/json`.",
    example: { message: "Send the request body as JSON, with Content-Type: application/json." },
    user_message: APP_ERROR
  },
  otp_invalid: {
    status: 422,
    meaning: "A wrong OTP; `attempts_left` says how many guesses remain.",
    example: { message: "The OTP is wrong.", attempts_left: 2, upstream_code: "OTP_INVALID" },
    user_message: {
      en: "The confirmation code is incorrect. Check the SMS and enter the code again.",
      uz: "Tasdiqlash kodi noto\u02BBg\u02BBri. SMSni tekshirib, kodni qayta kiriting.",
      "uz-Cyrl": "\u0422\u0430\u0441\u0434\u0438\u049B\u043B\u0430\u0448 \u043A\u043E\u0434\u0438 \u043D\u043E\u0442\u045E\u0493\u0440\u0438. SMS\u043D\u0438 \u0442\u0435\u043A\u0448\u0438\u0440\u0438\u0431, \u043A\u043E\u0434\u043D\u0438 \u049B\u0430\u0439\u0442\u0430 \u043A\u0438\u0440\u0438\u0442\u0438\u043D\u0433.",
      ru: "\u041D\u0435\u0432\u0435\u0440\u043D\u044B\u0439 \u043A\u043E\u0434 \u043F\u043E\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043D\u0438\u044F. \u041F\u0440\u043E\u0432\u0435\u0440\u044C\u0442\u0435 SMS \u0438 \u0432\u0432\u0435\u0434\u0438\u0442\u0435 \u043A\u043E\u0434 \u0435\u0449\u0451 \u0440\u0430\u0437."
    }
  },
  amount_out_of_range: {
    status: 422,
    meaning: "The amount is outside the merchant's limits (`min_amount`, `max_amount`).",
    example: {
      message: "The amount is outside the merchant's limits (min_amount, max_amount).",
      min_amount: 1e5,
      max_amount: 5e8,
      upstream_code: "AMOUNT_OUT_OF_RANGE"
    },
    user_message: {
      en: "The amount is outside the limits allowed for this payment. Please enter a different amount.",
      uz: "Summa bu to\u02BBlov uchun ruxsat etilgan chegaradan tashqarida. Boshqa summa kiriting.",
      "uz-Cyrl": "\u0421\u0443\u043C\u043C\u0430 \u0431\u0443 \u0442\u045E\u043B\u043E\u0432 \u0443\u0447\u0443\u043D \u0440\u0443\u0445\u0441\u0430\u0442 \u044D\u0442\u0438\u043B\u0433\u0430\u043D \u0447\u0435\u0433\u0430\u0440\u0430\u0434\u0430\u043D \u0442\u0430\u0448\u049B\u0430\u0440\u0438\u0434\u0430. \u0411\u043E\u0448\u049B\u0430 \u0441\u0443\u043C\u043C\u0430 \u043A\u0438\u0440\u0438\u0442\u0438\u043D\u0433.",
      ru: "\u0421\u0443\u043C\u043C\u0430 \u0432\u044B\u0445\u043E\u0434\u0438\u0442 \u0437\u0430 \u0434\u043E\u043F\u0443\u0441\u0442\u0438\u043C\u044B\u0435 \u043F\u0440\u0435\u0434\u0435\u043B\u044B \u0434\u043B\u044F \u044D\u0442\u043E\u0433\u043E \u043F\u043B\u0430\u0442\u0435\u0436\u0430. \u0423\u043A\u0430\u0436\u0438\u0442\u0435 \u0434\u0440\u0443\u0433\u0443\u044E \u0441\u0443\u043C\u043C\u0443."
    }
  },
  upstream_refused: {
    status: 422,
    meaning: "The payment service refused with a code the gateway does not know (`upstream_code`); nothing happened.",
    example: { message: "The payment service refused the request with LIMIT_EXCEEDED. Nothing was done.", upstream_code: "LIMIT_EXCEEDED" },
    user_message: {
      en: "The operation could not be completed and nothing was charged. Please try again later or contact support.",
      uz: "Amalni bajarib bo\u02BBlmadi, kartangizdan mablag\u02BB yechilmadi. Keyinroq qayta urinib ko\u02BBring yoki qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0410\u043C\u0430\u043B\u043D\u0438 \u0431\u0430\u0436\u0430\u0440\u0438\u0431 \u0431\u045E\u043B\u043C\u0430\u0434\u0438, \u043A\u0430\u0440\u0442\u0430\u043D\u0433\u0438\u0437\u0434\u0430\u043D \u043C\u0430\u0431\u043B\u0430\u0493 \u0435\u0447\u0438\u043B\u043C\u0430\u0434\u0438. \u041A\u0435\u0439\u0438\u043D\u0440\u043E\u049B \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433 \u0451\u043A\u0438 \u049B\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u041D\u0435 \u0443\u0434\u0430\u043B\u043E\u0441\u044C \u0432\u044B\u043F\u043E\u043B\u043D\u0438\u0442\u044C \u043E\u043F\u0435\u0440\u0430\u0446\u0438\u044E, \u0434\u0435\u043D\u044C\u0433\u0438 \u043D\u0435 \u0441\u043F\u0438\u0441\u0430\u043D\u044B. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u043F\u043E\u0437\u0436\u0435 \u0438\u043B\u0438 \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  rate_limited: {
    status: 429,
    meaning: "Too many calls from this user or address, or the sixth authorize of a receipt; retry after `Retry-After`.",
    example: { message: "Too many pay calls; wait before trying again." },
    user_message: {
      en: "Too many attempts. Please wait a little and try again.",
      uz: "Urinishlar juda ko\u02BBp. Biroz kutib, qayta urinib ko\u02BBring.",
      "uz-Cyrl": "\u0423\u0440\u0438\u043D\u0438\u0448\u043B\u0430\u0440 \u0436\u0443\u0434\u0430 \u043A\u045E\u043F. \u0411\u0438\u0440\u043E\u0437 \u043A\u0443\u0442\u0438\u0431, \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433.",
      ru: "\u0421\u043B\u0438\u0448\u043A\u043E\u043C \u043C\u043D\u043E\u0433\u043E \u043F\u043E\u043F\u044B\u0442\u043E\u043A. \u041F\u043E\u0434\u043E\u0436\u0434\u0438\u0442\u0435 \u043D\u0435\u043C\u043D\u043E\u0433\u043E \u0438 \u043F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u0441\u043D\u043E\u0432\u0430."
    }
  },
  risk_limited: {
    status: 429,
    meaning: "Rule 13: this user's uses of this card, this user's cards or OTP sends, or this card's users are past their limit (`rule` names it); nothing was sent upstream; retry after `Retry-After`.",
    example: {
      message: "This user used this card number too many times in the last hour (rule 13, user_card_uses_per_hour); retry after Retry-After seconds.",
      rule: "user_card_uses_per_hour"
    },
    user_message: {
      en: "For your security, this operation is temporarily limited. Please try again later.",
      uz: "Xavfsizligingiz uchun bu amal vaqtincha cheklandi. Keyinroq qayta urinib ko\u02BBring.",
      "uz-Cyrl": "\u0425\u0430\u0432\u0444\u0441\u0438\u0437\u043B\u0438\u0433\u0438\u043D\u0433\u0438\u0437 \u0443\u0447\u0443\u043D \u0431\u0443 \u0430\u043C\u0430\u043B \u0432\u0430\u049B\u0442\u0438\u043D\u0447\u0430 \u0447\u0435\u043A\u043B\u0430\u043D\u0434\u0438. \u041A\u0435\u0439\u0438\u043D\u0440\u043E\u049B \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433.",
      ru: "\u0412 \u0446\u0435\u043B\u044F\u0445 \u0431\u0435\u0437\u043E\u043F\u0430\u0441\u043D\u043E\u0441\u0442\u0438 \u044D\u0442\u0430 \u043E\u043F\u0435\u0440\u0430\u0446\u0438\u044F \u0432\u0440\u0435\u043C\u0435\u043D\u043D\u043E \u043E\u0433\u0440\u0430\u043D\u0438\u0447\u0435\u043D\u0430. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u043F\u043E\u0437\u0436\u0435."
    }
  },
  otp_resend_too_soon: {
    status: 429,
    meaning: "Authorize again before `wait` has passed; retry after `Retry-After`.",
    example: { message: "An OTP was sent moments ago; wait before asking for another." },
    user_message: {
      en: "A code was sent just now. Please wait a little before asking for a new one.",
      uz: "Kod hozirgina yuborildi. Yangi kod so\u02BBrashdan oldin biroz kuting.",
      "uz-Cyrl": "\u041A\u043E\u0434 \u04B3\u043E\u0437\u0438\u0440\u0433\u0438\u043D\u0430 \u044E\u0431\u043E\u0440\u0438\u043B\u0434\u0438. \u042F\u043D\u0433\u0438 \u043A\u043E\u0434 \u0441\u045E\u0440\u0430\u0448\u0434\u0430\u043D \u043E\u043B\u0434\u0438\u043D \u0431\u0438\u0440\u043E\u0437 \u043A\u0443\u0442\u0438\u043D\u0433.",
      ru: "\u041A\u043E\u0434 \u0442\u043E\u043B\u044C\u043A\u043E \u0447\u0442\u043E \u043E\u0442\u043F\u0440\u0430\u0432\u043B\u0435\u043D. \u041F\u043E\u0434\u043E\u0436\u0434\u0438\u0442\u0435 \u043D\u0435\u043C\u043D\u043E\u0433\u043E, \u043F\u0440\u0435\u0436\u0434\u0435 \u0447\u0435\u043C \u0437\u0430\u043F\u0440\u0430\u0448\u0438\u0432\u0430\u0442\u044C \u043D\u043E\u0432\u044B\u0439."
    }
  },
  internal_error: {
    status: 500,
    meaning: "A gateway bug; no input leads here.",
    example: { message: "The gateway failed to handle this request." },
    user_message: {
      en: "A technical error occurred. Please try again later.",
      uz: "Texnik xatolik yuz berdi. Keyinroq qayta urinib ko\u02BBring.",
      "uz-Cyrl": "\u0422\u0435\u0445\u043D\u0438\u043A \u0445\u0430\u0442\u043E\u043B\u0438\u043A \u044E\u0437 \u0431\u0435\u0440\u0434\u0438. \u041A\u0435\u0439\u0438\u043D\u0440\u043E\u049B \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433.",
      ru: "\u041F\u0440\u043E\u0438\u0437\u043E\u0448\u043B\u0430 \u0442\u0435\u0445\u043D\u0438\u0447\u0435\u0441\u043A\u0430\u044F \u043E\u0448\u0438\u0431\u043A\u0430. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u043F\u043E\u0437\u0436\u0435."
    }
  },
  upstream_error: {
    status: 502,
    meaning: "The payment service's answer was unusable, or it refused the gateway's credential; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service could not be reached, or the connection broke." },
    user_message: {
      en: `The result of this operation is not known yet. ${MAY_HAVE_GONE_THROUGH.en}`,
      uz: `Amal natijasi hali ma\u02BClum emas. ${MAY_HAVE_GONE_THROUGH.uz}`,
      "uz-Cyrl": `\u0410\u043C\u0430\u043B \u043D\u0430\u0442\u0438\u0436\u0430\u0441\u0438 \u04B3\u0430\u043B\u0438 \u043C\u0430\u044A\u043B\u0443\u043C \u044D\u043C\u0430\u0441. ${MAY_HAVE_GONE_THROUGH["uz-Cyrl"]}`,
      ru: `\u0420\u0435\u0437\u0443\u043B\u044C\u0442\u0430\u0442 \u043E\u043F\u0435\u0440\u0430\u0446\u0438\u0438 \u043F\u043E\u043A\u0430 \u043D\u0435\u0438\u0437\u0432\u0435\u0441\u0442\u0435\u043D. ${MAY_HAVE_GONE_THROUGH.ru}`
    }
  },
  upstream_unavailable: {
    status: 503,
    meaning: "The payment service said it is busy or down: nothing happened; retry after `Retry-After`.",
    example: { message: "The payment service is busy or down and did nothing; retry after the time given." },
    user_message: {
      en: "The payment service is temporarily unavailable and nothing was charged. Please try again in a little while.",
      uz: "To\u02BBlov xizmati vaqtincha ishlamayapti, kartangizdan mablag\u02BB yechilmadi. Birozdan so\u02BBng qayta urinib ko\u02BBring.",
      "uz-Cyrl": "\u0422\u045E\u043B\u043E\u0432 \u0445\u0438\u0437\u043C\u0430\u0442\u0438 \u0432\u0430\u049B\u0442\u0438\u043D\u0447\u0430 \u0438\u0448\u043B\u0430\u043C\u0430\u044F\u043F\u0442\u0438, \u043A\u0430\u0440\u0442\u0430\u043D\u0433\u0438\u0437\u0434\u0430\u043D \u043C\u0430\u0431\u043B\u0430\u0493 \u0435\u0447\u0438\u043B\u043C\u0430\u0434\u0438. \u0411\u0438\u0440\u043E\u0437\u0434\u0430\u043D \u0441\u045E\u043D\u0433 \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433.",
      ru: "\u041F\u043B\u0430\u0442\u0451\u0436\u043D\u044B\u0439 \u0441\u0435\u0440\u0432\u0438\u0441 \u0432\u0440\u0435\u043C\u0435\u043D\u043D\u043E \u043D\u0435\u0434\u043E\u0441\u0442\u0443\u043F\u0435\u043D, \u0434\u0435\u043D\u044C\u0433\u0438 \u043D\u0435 \u0441\u043F\u0438\u0441\u0430\u043D\u044B. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u0435\u0449\u0451 \u0440\u0430\u0437 \u0447\u0443\u0442\u044C \u043F\u043E\u0437\u0436\u0435."
    }
  },
  not_ready: {
    status: 503,
    meaning: "The readiness probe failed (the payment service or D1 does not answer); or, after a rollback, the receipt or transfer was stored by a newer release of the gateway and nothing was done; retry after `Retry-After`.",
    example: { message: "Not ready: the payment service did not answer within 2 s." },
    user_message: {
      en: "The service is temporarily unavailable. Please try again in a little while.",
      uz: "Xizmat vaqtincha ishlamayapti. Birozdan so\u02BBng qayta urinib ko\u02BBring.",
      "uz-Cyrl": "\u0425\u0438\u0437\u043C\u0430\u0442 \u0432\u0430\u049B\u0442\u0438\u043D\u0447\u0430 \u0438\u0448\u043B\u0430\u043C\u0430\u044F\u043F\u0442\u0438. \u0411\u0438\u0440\u043E\u0437\u0434\u0430\u043D \u0441\u045E\u043D\u0433 \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433.",
      ru: "\u0421\u0435\u0440\u0432\u0438\u0441 \u0432\u0440\u0435\u043C\u0435\u043D\u043D\u043E \u043D\u0435\u0434\u043E\u0441\u0442\u0443\u043F\u0435\u043D. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u0435\u0449\u0451 \u0440\u0430\u0437 \u0447\u0443\u0442\u044C \u043F\u043E\u0437\u0436\u0435."
    }
  },
  service_misconfigured: {
    status: 503,
    meaning: "The deployment's configuration is unsafe (e.g. development credentials in production); every call answers this until it is fixed.",
    example: { message: "This deployment is misconfigured: TID_SECRET is not set." },
    user_message: {
      en: "The service is temporarily unavailable. Please try again later or contact support.",
      uz: "Xizmat vaqtincha ishlamayapti. Keyinroq qayta urinib ko\u02BBring yoki qo\u02BBllab-quvvatlash xizmatiga murojaat qiling.",
      "uz-Cyrl": "\u0425\u0438\u0437\u043C\u0430\u0442 \u0432\u0430\u049B\u0442\u0438\u043D\u0447\u0430 \u0438\u0448\u043B\u0430\u043C\u0430\u044F\u043F\u0442\u0438. \u041A\u0435\u0439\u0438\u043D\u0440\u043E\u049B \u049B\u0430\u0439\u0442\u0430 \u0443\u0440\u0438\u043D\u0438\u0431 \u043A\u045E\u0440\u0438\u043D\u0433 \u0451\u043A\u0438 \u049B\u045E\u043B\u043B\u0430\u0431-\u049B\u0443\u0432\u0432\u0430\u0442\u043B\u0430\u0448 \u0445\u0438\u0437\u043C\u0430\u0442\u0438\u0433\u0430 \u043C\u0443\u0440\u043E\u0436\u0430\u0430\u0442 \u049B\u0438\u043B\u0438\u043D\u0433.",
      ru: "\u0421\u0435\u0440\u0432\u0438\u0441 \u0432\u0440\u0435\u043C\u0435\u043D\u043D\u043E \u043D\u0435\u0434\u043E\u0441\u0442\u0443\u043F\u0435\u043D. \u041F\u043E\u043F\u0440\u043E\u0431\u0443\u0439\u0442\u0435 \u043F\u043E\u0437\u0436\u0435 \u0438\u043B\u0438 \u043E\u0431\u0440\u0430\u0442\u0438\u0442\u0435\u0441\u044C \u0432 \u0441\u043B\u0443\u0436\u0431\u0443 \u043F\u043E\u0434\u0434\u0435\u0440\u0436\u043A\u0438."
    }
  },
  upstream_timeout: {
    status: 504,
    meaning: "The payment service did not answer in time; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service did not answer in time." },
    user_message: {
      en: `The payment service has not answered yet. ${MAY_HAVE_GONE_THROUGH.en}`,
      uz: `To\u02BBlov xizmati hali javob bermadi. ${MAY_HAVE_GONE_THROUGH.uz}`,
      "uz-Cyrl": `\u0422\u045E\u043B\u043E\u0432 \u0445\u0438\u0437\u043C\u0430\u0442\u0438 \u04B3\u0430\u043B\u0438 \u0436\u0430\u0432\u043E\u0431 \u0431\u0435\u0440\u043C\u0430\u0434\u0438. ${MAY_HAVE_GONE_THROUGH["uz-Cyrl"]}`,
      ru: `\u041F\u043B\u0430\u0442\u0451\u0436\u043D\u044B\u0439 \u0441\u0435\u0440\u0432\u0438\u0441 \u043F\u043E\u043A\u0430 \u043D\u0435 \u043E\u0442\u0432\u0435\u0442\u0438\u043B. ${MAY_HAVE_GONE_THROUGH.ru}`
    }
  }
};
var ERROR_CODE_NAMES = Object.keys(ERROR_CODES);
var isDeclineReason = /* @__PURE__ */ __name((reason) => reason !== void 0 && Object.hasOwn(DECLINE_REASONS, reason), "isDeclineReason");
function userMessage(code, language, declineReason) {
  const texts = code === "card_declined" && isDeclineReason(declineReason) ? DECLINE_REASONS[declineReason] : ERROR_CODES[code].user_message;
  return texts[language];
}
__name(userMessage, "userMessage");
var errorExample = /* @__PURE__ */ __name((code) => {
  const { message: message2, ...fields } = ERROR_CODES[code].example;
  const reason = typeof fields.decline_reason === "string" ? fields.decline_reason : void 0;
  return { error: { code, message: message2, user_message: userMessage(code, "en", reason), request_id: EXAMPLE_REQUEST_ID, ...fields } };
}, "errorExample");

// src/shared/log.ts
import { AsyncLocalStorage } from "node:async_hooks";

// src/shared/fnv1a.ts
function fnv1a(text2, seed = 2166136261) {
  let hash = seed >>> 0;
  for (let i = 0; i < text2.length; i++) {
    hash ^= text2.charCodeAt(i);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash >>> 0;
}
__name(fnv1a, "fnv1a");

// src/shared/redact.ts
var SECRET_KEYS = /* @__PURE__ */ new Set([
  "otp",
  "token",
  "expire",
  "number",
  "receiver_card",
  "card",
  "authorization",
  "cookie",
  "password",
  "secret",
  "api_key"
]);
var SEPARATOR = String.raw`[\s\p{Pd}\p{Cf}._/,]`;
var DIGIT_RUN = String.raw`\d(?:${SEPARATOR}{0,3}\d){11,}`;
var UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
var UUID_OR_DIGIT_RUN = new RegExp(`(${UUID})|${DIGIT_RUN}`, "giu");
var JWT_LIKE = /eyJ[\w-]+\.[\w-]+\.[\w-]*/g;
var SERVER_KEY_LIKE = /\bsk_[\w-]+/g;
var BEARER = /Bearer\s+\S+/gi;
function maskPan(pan) {
  if (pan.length < 13) return "*".repeat(pan.length);
  return `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`;
}
__name(maskPan, "maskPan");
var maskRun = /* @__PURE__ */ __name((run) => maskPan(run.replace(/\D/g, "")), "maskRun");
function maskDigitRuns(text2) {
  if (!hasTwelveDigits(text2)) return text2;
  return text2.replace(UUID_OR_DIGIT_RUN, (match2, uuid) => uuid ? match2 : maskRun(match2));
}
__name(maskDigitRuns, "maskDigitRuns");
function hasTwelveDigits(text2) {
  let digits2 = 0;
  for (let i = 0; i < text2.length; i++) {
    const c = text2.charCodeAt(i);
    if (c >= 48 && c <= 57 && ++digits2 >= 12) return true;
  }
  return false;
}
__name(hasTwelveDigits, "hasTwelveDigits");
var CREDENTIAL_LIKE = /eyJ|sk_|bearer/i;
function redactString(value) {
  const withoutCredentials = CREDENTIAL_LIKE.test(value) ? value.replace(BEARER, "Bearer [redacted]").replace(JWT_LIKE, "[redacted-jwt]").replace(SERVER_KEY_LIKE, "[redacted-key]") : value;
  return maskDigitRuns(withoutCredentials);
}
__name(redactString, "redactString");
function redact(value, depth = 0) {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 8) return "[truncated]";
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    out[maskDigitRuns(key)] = SECRET_KEYS.has(key.toLowerCase()) && v != null ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}
__name(redact, "redact");
function erasedValue(value) {
  if (value.length <= 4) return "*".repeat(value.length);
  return `${value.slice(0, 2)}${"*".repeat(value.length - 4)}${value.slice(-2)}`;
}
__name(erasedValue, "erasedValue");
function erasePersonal(value, depth = 0) {
  if (value === null || typeof value !== "object" || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => erasePersonal(v, depth + 1));
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "phone" && typeof v === "string") out[key] = erasedValue(v);
    else if (key === "account" && Array.isArray(v))
      out[key] = v.map(
        (entry) => entry && typeof entry === "object" && typeof entry.value === "string" ? { ...entry, value: erasedValue(entry.value) } : entry
      );
    else out[key] = erasePersonal(v, depth + 1);
  }
  return out;
}
__name(erasePersonal, "erasePersonal");
var erasePersonalJson = /* @__PURE__ */ __name((json) => JSON.stringify(erasePersonal(JSON.parse(json))), "erasePersonalJson");

// src/shared/log.ts
var RANK = { debug: 0, info: 1, warn: 2, error: 3 };
var SLOW_LINE_MS = 1e3;
var lineSampling = { draw: /* @__PURE__ */ __name(() => Math.random(), "draw") };
var requestDraw = /* @__PURE__ */ __name((requestId2) => fnv1a(requestId2) / 2 ** 32, "requestDraw");
var keptAt = /* @__PURE__ */ __name((draw, rate) => draw < rate, "keptAt");
var LogLine = class {
  static {
    __name(this, "LogLine");
  }
  #level = "info";
  #event;
  #fields;
  #upstream = [];
  #faults = [];
  #closed = false;
  /** Whether anything was logged into the line since it opened. */
  #noted = false;
  #quiet;
  /** LOG_SUCCESS_SAMPLE: the share of unremarkable lines written; null: never sampled (the cron's line). */
  #sample;
  /** The gateway acted on its own: written whatever else it tells. */
  #keep = false;
  /**
   * `quiet`: the line is written only if something was logged into it (a record's alarm that only drained its
   * outbox or exported its trail has nothing to tell, and wrote no line before the canonical line either).
   * `sample`: LOG_SUCCESS_SAMPLE, the share of unremarkable lines written, drawn on the line's `request_id` if it
   * has one; without it the line is never sampled (the cron's: a run a minute, each one on-call may need).
   */
  constructor(event, fields = {}, { quiet = false, sample } = {}) {
    this.#event = event;
    this.#fields = { ...fields };
    this.#quiet = quiet;
    this.#sample = sample ?? null;
  }
  get open() {
    return !this.#closed;
  }
  /** Sets fields of the line itself (its status, its record); `news`: they are something to tell (a state change), which a quiet line is written for. */
  set(fields, news = false) {
    if (news) this.#noted = true;
    Object.assign(this.#fields, fields);
  }
  /** An event folded into the line under its own name; the same event twice is a list. */
  add(event, fields, level = "info") {
    this.#noted = true;
    this.#raise(level);
    const before = this.#fields[event];
    this.#fields[event] = before === void 0 ? fields : Array.isArray(before) ? [...before, fields] : [before, fields];
  }
  /** An item of a list the line keeps under `key` (a queue batch's deliveries): a list even when it holds one. */
  push(key, item) {
    this.#noted = true;
    const list = this.#fields[key];
    if (Array.isArray(list)) list.push(item);
    else this.#fields[key] = [item];
  }
  call(note2) {
    this.#noted = true;
    this.#upstream.push(note2);
  }
  /** A fault that wrote its own line: named here, at its level. */
  fault(event, level) {
    this.#noted = true;
    this.#raise(level);
    if (!this.#faults.includes(event)) this.#faults.push(event);
  }
  /** The gateway acted on its own (a look at the upstream: rule 8's reconciliation, a late or fiscal read, rule 12's expiry): the line is always written. */
  keep() {
    this.#noted = true;
    this.#keep = true;
  }
  /** Takes over what another invocation's line gathered for this one. */
  merge(notes) {
    this.#noted = true;
    if (notes.keep) this.#keep = true;
    this.#raise(notes.level);
    Object.assign(this.#fields, notes.fields);
    this.#upstream.push(...notes.upstream);
    for (const fault of notes.faults) if (!this.#faults.includes(fault)) this.#faults.push(fault);
  }
  /** What the line gathered, closed: for a record's call to hand back with its answer. */
  take() {
    this.#closed = true;
    return { level: this.#level, fields: this.#fields, upstream: this.#upstream, faults: this.#faults, ...this.#keep ? { keep: true } : {} };
  }
  /** Writes the line, once (a quiet line only if something was logged into it; an unremarkable one if its draw keeps it). */
  write() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#quiet && !this.#noted) return;
    const upstream = this.#upstream;
    let sampled2 = {};
    if (this.#sample !== null && !this.#remarkable()) {
      const id = this.#fields.request_id;
      const draw = typeof id === "string" && id !== "" ? requestDraw(id) : lineSampling.draw();
      if (!keptAt(draw, this.#sample)) return;
      sampled2 = { sample: Math.round(1e3 / this.#sample) / 1e3 };
    }
    const calls = upstream.length === 0 ? {} : upstreamFields(upstream);
    const faults = this.#faults.length === 0 ? {} : { faults: this.#faults };
    writeLine(this.#level, this.#event, { ...this.#fields, ...calls, ...faults, ...sampled2 });
  }
  /**
   * Always written, never sampled: a warning or an error (a fault, which raises the line to its level; rule 13's
   * refusals), an answer of 4xx or 5xx
   * (every rule's refusal), an upstream call that did not answer ok (refused, failed, timed out, unreadable), what
   * the gateway did on its own (`keep`), and a slow invocation (SLOW_LINE_MS).
   */
  #remarkable() {
    const status = this.#fields.status;
    const ms = this.#fields.ms;
    return RANK[this.#level] >= RANK.warn || this.#keep || typeof status === "number" && status >= 400 || this.#upstream.some((c) => c.outcome !== "ok") || typeof ms === "number" && ms >= SLOW_LINE_MS || this.#upstream.reduce((sum, c) => sum + c.ms, 0) >= SLOW_LINE_MS;
  }
  #raise(level) {
    if (RANK[level] > RANK[this.#level]) this.#level = level;
  }
};
function upstreamFields(calls) {
  const call = calls.find((c) => c.outcome !== "ok") ?? calls.at(-1);
  return {
    upstream: calls.map((c) => c.path).join(" "),
    upstream_outcome: call.outcome,
    ...call.status === void 0 ? {} : { upstream_status: call.status },
    upstream_ms: calls.reduce((ms, c) => ms + c.ms, 0),
    ...calls.length > 1 ? { upstream_calls: calls } : {}
  };
}
__name(upstreamFields, "upstreamFields");
var lines = new AsyncLocalStorage();
function inLine(line, work) {
  return lines.run(line, work);
}
__name(inLine, "inLine");
function currentLine() {
  const line = lines.getStore();
  return line?.open ? line : void 0;
}
__name(currentLine, "currentLine");
function log(level, event, fields = {}) {
  const line = currentLine();
  if (line && RANK[level] <= RANK.info) {
    line.add(event, fields, level);
    return;
  }
  line?.fault(event, level);
  writeLine(level, event, fields);
}
__name(log, "log");
function note(level, event, fields) {
  const line = currentLine();
  if (line) line.add(event, fields, level);
  else writeLine(level, event, fields);
}
__name(note, "note");
function keepLine() {
  currentLine()?.keep();
}
__name(keepLine, "keepLine");
function noteUpstreamCall(requestId2, call) {
  const line = currentLine();
  if (line) line.call(call);
  else writeLine("info", "upstream_call", { request_id: requestId2, ...call });
}
__name(noteUpstreamCall, "noteUpstreamCall");
function writeLine(level, event, fields) {
  const line = JSON.stringify({ level, event, ...redact(fields) });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
__name(writeLine, "writeLine");

// ../../../work/main/node_modules/hono/dist/utils/cookie.js
var validCookieNameRegEx = /^[\w!#$%&'*.^`|~+-]+$/;
var relaxedCookieNameRegEx = /^[!#-:<>-[\]-~]+$/;
var validCookieValueRegEx = /^[ !#-:<-[\]-~]*$/;
var trimCookieWhitespace = /* @__PURE__ */ __name((value) => {
  let start = 0;
  let end = value.length;
  while (start < end) {
    const charCode = value.charCodeAt(start);
    if (charCode !== 32 && charCode !== 9) break;
    start++;
  }
  while (end > start) {
    const charCode = value.charCodeAt(end - 1);
    if (charCode !== 32 && charCode !== 9) break;
    end--;
  }
  return start === 0 && end === value.length ? value : value.slice(start, end);
}, "trimCookieWhitespace");
var parse = /* @__PURE__ */ __name((cookie, name) => {
  if (name && cookie.indexOf(name) === -1) return {};
  const pairs = cookie.split(";");
  const parsedCookie = /* @__PURE__ */ Object.create(null);
  for (const pairStr of pairs) {
    const valueStartPos = pairStr.indexOf("=");
    if (valueStartPos === -1) continue;
    const cookieName = trimCookieWhitespace(pairStr.substring(0, valueStartPos));
    if (name && name !== cookieName || !relaxedCookieNameRegEx.test(cookieName) || cookieName in parsedCookie) continue;
    let cookieValue = trimCookieWhitespace(pairStr.substring(valueStartPos + 1));
    if (cookieValue.startsWith('"') && cookieValue.endsWith('"')) cookieValue = cookieValue.slice(1, -1);
    if (validCookieValueRegEx.test(cookieValue)) {
      parsedCookie[cookieName] = tryDecodeURIComponent(cookieValue);
      if (name) break;
    }
  }
  return parsedCookie;
}, "parse");
var _serialize = /* @__PURE__ */ __name((name, value, opt = {}) => {
  if (!validCookieNameRegEx.test(name)) throw new Error("Invalid cookie name");
  let cookie = `${name}=${value}`;
  if (/^__secure-/i.test(name) && !opt.secure) throw new Error("__Secure- Cookie must have Secure attributes");
  if (/^__host-/i.test(name)) {
    if (!opt.secure) throw new Error("__Host- Cookie must have Secure attributes");
    if (opt.path !== "/") throw new Error('__Host- Cookie must have Path attributes with "/"');
    if (opt.domain) throw new Error("__Host- Cookie must not have Domain attributes");
  }
  for (const key of [
    "domain",
    "path",
    "sameSite",
    "priority"
  ]) if (opt[key] && /[;\r\n]/.test(opt[key])) throw new Error(`${key} must not contain ";", "\\r", or "\\n"`);
  if (opt && typeof opt.maxAge === "number" && opt.maxAge >= 0) {
    if (opt.maxAge > 3456e4) throw new Error("Cookies Max-Age SHOULD NOT be greater than 400 days (34560000 seconds) in duration.");
    cookie += `; Max-Age=${opt.maxAge | 0}`;
  }
  if (opt.domain && opt.prefix !== "host") cookie += `; Domain=${opt.domain}`;
  if (opt.path) cookie += `; Path=${opt.path}`;
  if (opt.expires) {
    if (opt.expires.getTime() - Date.now() > 3456e7) throw new Error("Cookies Expires SHOULD NOT be greater than 400 days (34560000 seconds) in the future.");
    cookie += `; Expires=${opt.expires.toUTCString()}`;
  }
  if (opt.httpOnly) cookie += "; HttpOnly";
  if (opt.secure) cookie += "; Secure";
  if (opt.sameSite) cookie += `; SameSite=${opt.sameSite.charAt(0).toUpperCase() + opt.sameSite.slice(1)}`;
  if (opt.priority) cookie += `; Priority=${opt.priority.charAt(0).toUpperCase() + opt.priority.slice(1)}`;
  if (opt.partitioned) {
    if (!opt.secure) throw new Error("Partitioned Cookie must have Secure attributes");
    cookie += "; Partitioned";
  }
  return cookie;
}, "_serialize");
var serialize = /* @__PURE__ */ __name((name, value, opt) => {
  value = encodeURIComponent(value);
  return _serialize(name, value, opt);
}, "serialize");

// ../../../work/main/node_modules/hono/dist/helper/cookie/index.js
var getCookie = /* @__PURE__ */ __name((c, key, prefix) => {
  const cookie = c.req.raw.headers.get("Cookie");
  if (typeof key === "string") {
    if (!cookie) return;
    let finalKey = key;
    if (prefix === "secure") finalKey = "__Secure-" + key;
    else if (prefix === "host") finalKey = "__Host-" + key;
    return parse(cookie, finalKey)[finalKey];
  }
  if (!cookie) return {};
  return parse(cookie);
}, "getCookie");
var generateCookie = /* @__PURE__ */ __name((name, value, opt) => {
  let cookie;
  if (opt?.prefix === "secure") cookie = serialize("__Secure-" + name, value, {
    path: "/",
    ...opt,
    secure: true
  });
  else if (opt?.prefix === "host") cookie = serialize("__Host-" + name, value, {
    ...opt,
    path: "/",
    secure: true,
    domain: void 0
  });
  else cookie = serialize(name, value, {
    path: "/",
    ...opt
  });
  return cookie;
}, "generateCookie");
var setCookie = /* @__PURE__ */ __name((c, name, value, opt) => {
  const cookie = generateCookie(name, value, opt);
  c.header("Set-Cookie", cookie, { append: true });
}, "setCookie");

// ../../../work/main/node_modules/hono/dist/utils/accept.js
var isWhitespace = /* @__PURE__ */ __name((char) => char === 32 || char === 9 || char === 10 || char === 13, "isWhitespace");
var consumeWhitespace = /* @__PURE__ */ __name((acceptHeader, startIndex) => {
  while (startIndex < acceptHeader.length) {
    if (!isWhitespace(acceptHeader.charCodeAt(startIndex))) break;
    startIndex++;
  }
  return startIndex;
}, "consumeWhitespace");
var ignoreTrailingWhitespace = /* @__PURE__ */ __name((acceptHeader, startIndex) => {
  while (startIndex > 0) {
    if (!isWhitespace(acceptHeader.charCodeAt(startIndex - 1))) break;
    startIndex--;
  }
  return startIndex;
}, "ignoreTrailingWhitespace");
var skipInvalidParam = /* @__PURE__ */ __name((acceptHeader, startIndex) => {
  while (startIndex < acceptHeader.length) {
    const char = acceptHeader.charCodeAt(startIndex);
    if (char === 59) return [startIndex + 1, true];
    if (char === 44) return [startIndex + 1, false];
    startIndex++;
  }
  return [startIndex, false];
}, "skipInvalidParam");
var skipInvalidAcceptValue = /* @__PURE__ */ __name((acceptHeader, startIndex) => {
  let i = startIndex;
  let inQuotes = false;
  while (i < acceptHeader.length) {
    const char = acceptHeader.charCodeAt(i);
    if (inQuotes && char === 92) i++;
    else if (char === 34) inQuotes = !inQuotes;
    else if (!inQuotes && char === 44) return i + 1;
    i++;
  }
  return i;
}, "skipInvalidAcceptValue");
var getNextParam = /* @__PURE__ */ __name((acceptHeader, startIndex) => {
  startIndex = consumeWhitespace(acceptHeader, startIndex);
  let i = startIndex;
  let key;
  let value;
  let hasNext = false;
  while (i < acceptHeader.length) {
    const char = acceptHeader.charCodeAt(i);
    if (char === 61) {
      key = acceptHeader.slice(startIndex, ignoreTrailingWhitespace(acceptHeader, i));
      i++;
      break;
    }
    if (char === 59) return [
      i + 1,
      void 0,
      void 0,
      true
    ];
    if (char === 44) return [
      i + 1,
      void 0,
      void 0,
      false
    ];
    i++;
  }
  if (key === void 0) return [
    i,
    void 0,
    void 0,
    false
  ];
  i = consumeWhitespace(acceptHeader, i);
  if (acceptHeader.charCodeAt(i) === 61) {
    const skipResult = skipInvalidParam(acceptHeader, i + 1);
    return [
      skipResult[0],
      key,
      void 0,
      skipResult[1]
    ];
  }
  let inQuotes = false;
  const paramStartIndex = i;
  while (i < acceptHeader.length) {
    const char = acceptHeader.charCodeAt(i);
    if (inQuotes && char === 92) i++;
    else if (char === 34) {
      if (inQuotes) {
        let nextIndex = consumeWhitespace(acceptHeader, i + 1);
        const nextChar = acceptHeader.charCodeAt(nextIndex);
        if (nextIndex < acceptHeader.length && !(nextChar === 59 || nextChar === 44)) {
          const skipResult = skipInvalidParam(acceptHeader, nextIndex);
          return [
            skipResult[0],
            key,
            void 0,
            skipResult[1]
          ];
        }
        value = acceptHeader.slice(paramStartIndex + 1, i);
        if (value.includes("\\")) value = value.replace(/\\(.)/g, "$1");
        if (nextChar === 44) return [
          nextIndex + 1,
          key,
          value,
          false
        ];
        if (nextChar === 59) {
          hasNext = true;
          nextIndex++;
        }
        i = nextIndex;
        break;
      }
      inQuotes = true;
    } else if (!inQuotes && (char === 59 || char === 44)) {
      value = acceptHeader.slice(paramStartIndex, ignoreTrailingWhitespace(acceptHeader, i));
      if (char === 59) hasNext = true;
      i++;
      break;
    }
    i++;
  }
  return [
    i,
    key,
    value ?? acceptHeader.slice(paramStartIndex, ignoreTrailingWhitespace(acceptHeader, i)),
    hasNext
  ];
}, "getNextParam");
var getNextAcceptValue = /* @__PURE__ */ __name((acceptHeader, startIndex) => {
  const accept = {
    type: "",
    params: /* @__PURE__ */ Object.create(null),
    q: 1
  };
  startIndex = consumeWhitespace(acceptHeader, startIndex);
  let i = startIndex;
  while (i < acceptHeader.length) {
    const char = acceptHeader.charCodeAt(i);
    if (char === 59 || char === 44) {
      accept.type = acceptHeader.slice(startIndex, ignoreTrailingWhitespace(acceptHeader, i));
      i++;
      if (char === 44) return [i, accept.type ? accept : void 0];
      if (!accept.type) return [skipInvalidAcceptValue(acceptHeader, i), void 0];
      break;
    }
    i++;
  }
  if (!accept.type) {
    accept.type = acceptHeader.slice(startIndex, ignoreTrailingWhitespace(acceptHeader, acceptHeader.length));
    return [acceptHeader.length, accept.type ? accept : void 0];
  }
  let param;
  let value;
  let hasNext;
  while (i < acceptHeader.length) {
    [i, param, value, hasNext] = getNextParam(acceptHeader, i);
    if (param && value) accept.params[param] = value;
    if (!hasNext) break;
  }
  return [i, accept];
}, "getNextAcceptValue");
var parseAccept = /* @__PURE__ */ __name((acceptHeader) => {
  if (!acceptHeader) return [];
  const values = [];
  let i = 0;
  let accept;
  let requiresSort = false;
  let lastAccept;
  while (i < acceptHeader.length) {
    [i, accept] = getNextAcceptValue(acceptHeader, i);
    if (accept) {
      accept.q = parseQuality(accept.params.q ?? accept.params.Q);
      values.push(accept);
      if (lastAccept && lastAccept.q < accept.q) requiresSort = true;
      lastAccept = accept;
    }
  }
  if (requiresSort) values.sort((a, b) => b.q - a.q);
  return values;
}, "parseAccept");
var parseQuality = /* @__PURE__ */ __name((qVal) => {
  if (qVal === void 0) return 1;
  if (qVal === "") return 1;
  if (qVal === "NaN") return 0;
  const num3 = Number(qVal);
  if (Number.isNaN(num3)) return 1;
  if (num3 < 0) return 0;
  if (num3 > 1) return 1;
  return num3;
}, "parseQuality");

// ../../../work/main/node_modules/hono/dist/middleware/language/language.js
var DEFAULT_OPTIONS = {
  order: [
    "querystring",
    "cookie",
    "header"
  ],
  lookupQueryString: "lang",
  lookupCookie: "language",
  lookupFromHeaderKey: "accept-language",
  lookupFromPathIndex: 0,
  caches: ["cookie"],
  ignoreCase: true,
  fallbackLanguage: "en",
  supportedLanguages: ["en"],
  cookieOptions: {
    sameSite: "Strict",
    secure: true,
    maxAge: 31536e3,
    httpOnly: true
  },
  debug: false
};
function parseAcceptLanguage(header2) {
  return parseAccept(header2).map(({ type, q }) => ({
    lang: type,
    q
  }));
}
__name(parseAcceptLanguage, "parseAcceptLanguage");
var normalizeLanguage = /* @__PURE__ */ __name((lang, options) => {
  if (!lang) return;
  try {
    let normalizedLang = lang.trim();
    if (options.convertDetectedLanguage) normalizedLang = options.convertDetectedLanguage(normalizedLang);
    const compLang = options.ignoreCase ? normalizedLang.toLowerCase() : normalizedLang;
    const compSupported = options.supportedLanguages.map((l) => options.ignoreCase ? l.toLowerCase() : l);
    const exactIndex = compSupported.indexOf(compLang);
    if (exactIndex !== -1) return options.supportedLanguages[exactIndex];
    let longestMatchIndex = -1;
    let longestMatchLength = -1;
    for (let i = 0; i < compSupported.length; i++) {
      const candidate = compSupported[i];
      if (candidate.length < compLang.length && candidate.length > longestMatchLength && compLang.startsWith(candidate) && compLang[candidate.length] === "-") {
        longestMatchIndex = i;
        longestMatchLength = candidate.length;
      }
    }
    if (longestMatchIndex !== -1) return options.supportedLanguages[longestMatchIndex];
    return;
  } catch {
    return;
  }
}, "normalizeLanguage");
var detectFromQuery = /* @__PURE__ */ __name((c, options) => {
  const query = c.req.query(options.lookupQueryString);
  return normalizeLanguage(query, options);
}, "detectFromQuery");
var detectFromCookie = /* @__PURE__ */ __name((c, options) => {
  const cookie = getCookie(c, options.lookupCookie);
  return normalizeLanguage(cookie, options);
}, "detectFromCookie");
function detectFromHeader(c, options) {
  try {
    const acceptLanguage = c.req.header(options.lookupFromHeaderKey);
    if (!acceptLanguage) return;
    const languages = parseAcceptLanguage(acceptLanguage);
    for (const { lang, q } of languages) {
      if (q === 0) continue;
      const normalizedLang = normalizeLanguage(lang, options);
      if (normalizedLang) return normalizedLang;
    }
    return;
  } catch {
    return;
  }
}
__name(detectFromHeader, "detectFromHeader");
function detectFromPath(c, options) {
  const langSegment = new URL(c.req.url).pathname.split("/").filter(Boolean)[options.lookupFromPathIndex];
  return normalizeLanguage(langSegment, options);
}
__name(detectFromPath, "detectFromPath");
var detectors = {
  querystring: detectFromQuery,
  cookie: detectFromCookie,
  header: detectFromHeader,
  path: detectFromPath
};
function validateOptions(options) {
  if (!options.supportedLanguages.includes(options.fallbackLanguage)) throw new Error("Fallback language must be included in supported languages");
  if (options.lookupFromPathIndex < 0) throw new Error("Path index must be non-negative");
  if (!options.order.every((detector) => Object.keys(detectors).includes(detector))) throw new Error("Invalid detector type in order array");
}
__name(validateOptions, "validateOptions");
function cacheLanguage(c, language, options) {
  if (!Array.isArray(options.caches) || !options.caches.includes("cookie")) return;
  try {
    setCookie(c, options.lookupCookie, language, options.cookieOptions);
  } catch (error) {
    if (options.debug) console.error("Failed to cache language:", error);
  }
}
__name(cacheLanguage, "cacheLanguage");
var detectLanguage = /* @__PURE__ */ __name((c, options) => {
  let detectedLang;
  for (const detectorName of options.order) {
    const detector = detectors[detectorName];
    try {
      detectedLang = detector(c, options);
      if (detectedLang) {
        if (options.debug) console.log(`Language detected from ${detectorName}: ${detectedLang}`);
        break;
      }
    } catch (error) {
      if (options.debug) console.error(`Error in ${detectorName} detector:`, error);
      continue;
    }
  }
  const finalLang = detectedLang || options.fallbackLanguage;
  if (detectedLang && options.caches) cacheLanguage(c, finalLang, options);
  return finalLang;
}, "detectLanguage");
var languageDetector = /* @__PURE__ */ __name((userOptions) => {
  const options = {
    ...DEFAULT_OPTIONS,
    ...userOptions,
    cookieOptions: {
      ...DEFAULT_OPTIONS.cookieOptions,
      ...userOptions.cookieOptions
    }
  };
  validateOptions(options);
  return /* @__PURE__ */ __name(async function languageDetector2(ctx, next) {
    const lang = detectLanguage(ctx, options);
    ctx.set("language", lang);
    await next();
  }, "languageDetector");
}, "languageDetector");

// src/errors/language.ts
var negotiateLanguage = languageDetector({
  supportedLanguages: [...LANGUAGES],
  fallbackLanguage: "en",
  order: ["header"],
  caches: false,
  ignoreCase: true,
  convertDetectedLanguage: /* @__PURE__ */ __name((range) => range === "*" ? "en" : range, "convertDetectedLanguage")
});
var languageOf = /* @__PURE__ */ __name((language) => LANGUAGES.includes(language ?? "") ? language : "en", "languageOf");

// src/errors/errors.ts
var NEWER_SCHEMA = "stored by a newer gateway";
var isNewerSchema = /* @__PURE__ */ __name((err) => err instanceof Error && err.message.includes(NEWER_SCHEMA), "isNewerSchema");
var ApiError = class _ApiError extends Error {
  static {
    __name(this, "ApiError");
  }
  code;
  extras;
  constructor(code, message2, extras = {}) {
    super(message2);
    this.name = "ApiError";
    this.code = code;
    this.extras = extras;
  }
  get status() {
    return ERROR_CODES[this.code].status;
  }
  static from(failure) {
    const { code, message: message2, ...extras } = failure;
    return new _ApiError(code, message2, extras);
  }
  toFailure() {
    return { code: this.code, message: this.message, ...this.extras };
  }
};
var fail = /* @__PURE__ */ __name((code, message2, extras = {}) => ({
  ok: false,
  error: { code, message: message2, ...extras }
}), "fail");
function unwrap(outcome) {
  if (outcome.ok) return outcome.value;
  throw ApiError.from(outcome.error);
}
__name(unwrap, "unwrap");
var NEWER_RECORD_RETRY_SECONDS = 60;
function renderError(err, c) {
  const requestId2 = c.get("requestId") ?? "";
  const language = languageOf(c.get("language"));
  let apiError;
  if (err instanceof ApiError) {
    apiError = err;
  } else if (err instanceof HTTPException && err.status === 413) {
    apiError = new ApiError("payload_too_large", "Request bodies are limited to 16 KiB.");
  } else if (err instanceof HTTPException && err.status === 400) {
    apiError = new ApiError("invalid_json", "The request body is not valid JSON.");
  } else if (isNewerSchema(err)) {
    log("warn", "record_schema_newer", { request_id: requestId2, error: err.message });
    apiError = new ApiError(
      "not_ready",
      "This receipt or transfer was stored by a newer release of the gateway than the one serving now; nothing was done. Retry after Retry-After.",
      { retry_after: NEWER_RECORD_RETRY_SECONDS }
    );
  } else {
    log("error", "unhandled_error", {
      request_id: requestId2,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err)
    });
    apiError = new ApiError("internal_error", "The gateway failed to handle this request.");
  }
  const failure = apiError.toFailure();
  currentLine()?.set({ code: failure.code });
  const answer = errorAnswer(failure, requestId2, language);
  for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
  return c.body(answer.body, answer.status, { "content-type": "application/json" });
}
__name(renderError, "renderError");
function errorAnswer(failure, requestId2, language) {
  const { code, message: message2, retry_after, headers, ...extras } = failure;
  const out = { ...headers ?? {}, "Content-Language": language };
  if (retry_after !== void 0) out["Retry-After"] = String(Math.max(1, Math.ceil(retry_after)));
  const user_message = userMessage(code, language, extras.decline_reason);
  return {
    status: ERROR_CODES[code].status,
    body: JSON.stringify({ error: { code, message: message2, user_message, request_id: requestId2, ...extras } }),
    headers: out
  };
}
__name(errorAnswer, "errorAnswer");

// src/backoffice/charts.ts
var STEPS = 60;
var DATASET = "payments_gateway_metrics";
var localSource = null;
function useLocalMetrics(source) {
  localSource = source;
}
__name(useLocalMetrics, "useLocalMetrics");
var UNKNOWN_CLASSES = /* @__PURE__ */ new Set(["timeout", "network", "failed", "unreadable"]);
var isPay = /* @__PURE__ */ __name((operation2) => /(^|\/)pay$/.test(operation2), "isPay");
var percentile = /* @__PURE__ */ __name((sorted, p) => sorted[Math.max(0, Math.ceil(p / 100 * sorted.length) - 1)] ?? 0, "percentile");
var spread = /* @__PURE__ */ __name((steps) => [...steps].map(([t, ms]) => {
  const sorted = ms.sort((a, b) => a - b);
  return { t, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
}), "spread");
function localRows(source, from, step) {
  const counts = /* @__PURE__ */ new Map();
  const times2 = /* @__PURE__ */ new Map();
  const waits = /* @__PURE__ */ new Map();
  for (const { at, point } of source(from * 1e3)) {
    const t = Math.floor(at / 1e3 / step) * step;
    const [metric2, operation2, outcome] = point.blobs;
    const key = `${t}\0${metric2}\0${operation2}\0${outcome}`;
    const row = counts.get(key) ?? { t, metric: metric2, operation: operation2, outcome, n: 0 };
    row.n += point.doubles[0];
    counts.set(key, row);
    const weighted = /* @__PURE__ */ __name((value) => Array.from({ length: Math.max(1, Math.round(point.doubles[0])) }, () => value), "weighted");
    if (metric2 === "upstream_call") times2.set(t, [...times2.get(t) ?? [], ...weighted(point.doubles[1])]);
    if (metric2 === "event_delivery") waits.set(t, [...waits.get(t) ?? [], ...weighted(point.doubles[2])]);
  }
  return { counts: [...counts.values()], latency: spread(times2), queue: spread(waits) };
}
__name(localRows, "localRows");
async function sql(env, query) {
  const account = (env.ANALYTICS_ACCOUNT_ID ?? "").trim();
  const token = (env.ANALYTICS_API_TOKEN ?? "").trim();
  if (!account || !token) {
    throw new ApiError(
      "not_ready",
      "The charts need ANALYTICS_ACCOUNT_ID and ANALYTICS_API_TOKEN (a read-only Account Analytics token): docs/production.md."
    );
  }
  const response = await fetch(`https://api.cloudflare.com/client/v4/accounts/${encodeURIComponent(account)}/analytics_engine/sql`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: query,
    signal: AbortSignal.timeout(1e4)
  }).catch((err) => {
    log("error", "analytics_unavailable", { error: err instanceof Error ? err.message : String(err) });
    return null;
  });
  if (!response?.ok) {
    if (response) log("error", "analytics_unavailable", { status: response.status });
    await response?.body?.cancel();
    throw new ApiError("upstream_unavailable", "Analytics Engine did not answer the charts' query; retry shortly.");
  }
  return (await response.json()).data;
}
__name(sql, "sql");
var spreadSql = /* @__PURE__ */ __name((column) => [0.5, 0.95, 0.99].map((q) => `quantileExactWeighted(${q})(${column}, toUInt32(_sample_interval * double1)) AS p${Math.round(q * 100)}`).concat(`max(${column}) AS max`).join(", "), "spreadSql");
async function analyticsRows(env, from, step) {
  const dataset = (env.ANALYTICS_DATASET ?? "").trim() || DATASET;
  if (!/^\w+$/.test(dataset)) throw new ApiError("not_ready", "ANALYTICS_DATASET is not a dataset name.");
  const bucket = `intDiv(toUInt32(timestamp), ${step}) * ${step}`;
  const since = `timestamp >= toDateTime(${from})`;
  const [counts, latency, queue] = await Promise.all([
    sql(
      env,
      `SELECT ${bucket} AS t, blob1 AS metric, blob2 AS operation, blob3 AS outcome, SUM(_sample_interval * double1) AS n
       FROM ${dataset} WHERE ${since} GROUP BY t, metric, operation, outcome FORMAT JSON`
    ),
    sql(
      env,
      `SELECT ${bucket} AS t, ${spreadSql("double2")} FROM ${dataset} WHERE ${since} AND blob1 = 'upstream_call' GROUP BY t FORMAT JSON`
    ),
    sql(
      env,
      `SELECT ${bucket} AS t, ${spreadSql("double3")} FROM ${dataset} WHERE ${since} AND blob1 = 'event_delivery' GROUP BY t FORMAT JSON`
    )
  ]);
  const spreadOf = /* @__PURE__ */ __name((r) => ({ t: Number(r.t), p50: Number(r.p50), p95: Number(r.p95), p99: Number(r.p99), max: Number(r.max) }), "spreadOf");
  return {
    counts: counts.map((r) => ({ t: Number(r.t), metric: r.metric, operation: r.operation, outcome: r.outcome, n: Number(r.n) })),
    latency: latency.map(spreadOf),
    queue: queue.map(spreadOf)
  };
}
__name(analyticsRows, "analyticsRows");
function seriesOf({ counts, latency, queue }, from, step) {
  const t = Array.from({ length: STEPS }, (_, i) => from + i * step);
  const at = /* @__PURE__ */ __name((time2) => Math.floor((time2 - from) / step), "at");
  const chart = /* @__PURE__ */ __name((names) => {
    const lines2 = { t };
    for (const name of names) lines2[name] = t.map(() => 0);
    return lines2;
  }, "chart");
  const add = /* @__PURE__ */ __name((lines2, name, time2, n) => {
    const i = at(time2);
    if (i < 0 || i >= STEPS) return;
    lines2[name] ??= t.map(() => 0);
    lines2[name][i] += n;
  }, "add");
  const payments = chart(["paid", "declined", "unknown"]);
  const unknown = chart(["unknown", "reconciled", "reconcile_failed"]);
  const refusals = chart(["refused", "busy", "unauthorized"]);
  const risk = chart([]);
  const webhooks = chart(["attempts_failed", "given_up"]);
  const declines = chart(DECLINE_REASON_NAMES);
  const exhausted = chart(["receipt", "transfer"]);
  for (const row of counts) {
    if (row.metric === "upstream_call") {
      if (isPay(row.operation)) {
        if (row.outcome === "ok") add(payments, "paid", row.t, row.n);
        else if (UNKNOWN_CLASSES.has(row.outcome)) add(payments, "unknown", row.t, row.n);
      }
      if (row.outcome in refusals) add(refusals, row.outcome, row.t, row.n);
    } else if (row.metric === "unknown_outcome") add(unknown, "unknown", row.t, row.n);
    else if (row.metric === "reconciliation") add(unknown, row.outcome === "ok" ? "reconciled" : "reconcile_failed", row.t, row.n);
    else if (row.metric === "risk_refused") add(risk, row.operation, row.t, row.n);
    else if (row.metric === "card_declined") {
      add(declines, row.outcome, row.t, row.n);
      if (isPay(row.operation)) add(payments, "declined", row.t, row.n);
    } else if (row.metric === "otp_exhausted") add(exhausted, row.operation, row.t, row.n);
    else if (row.metric === "event_delivery" && row.outcome === "failed") add(webhooks, "attempts_failed", row.t, row.n);
    else if (row.metric === "event_failed") add(webhooks, "given_up", row.t, row.n);
  }
  const latencyMs = chart(["p50", "p95", "p99"]);
  for (const row of latency) {
    const i = at(row.t);
    if (i < 0 || i >= STEPS) continue;
    latencyMs.p50[i] = row.p50;
    latencyMs.p95[i] = row.p95;
    latencyMs.p99[i] = row.p99;
  }
  const queueAge = chart(["p50", "p99", "max"]);
  for (const row of queue) {
    const i = at(row.t);
    if (i < 0 || i >= STEPS) continue;
    queueAge.p50[i] = row.p50 / 1e3;
    queueAge.p99[i] = row.p99 / 1e3;
    queueAge.max[i] = row.max / 1e3;
  }
  return {
    payments_by_outcome: payments,
    unknown_outcomes: unknown,
    upstream_refusals: refusals,
    declines_by_reason: declines,
    otp_exhausted: exhausted,
    risk_refusals_by_rule: risk,
    webhook_failures: webhooks,
    queue_age_s: queueAge,
    latency_ms: latencyMs
  };
}
__name(seriesOf, "seriesOf");
async function chartsFor(env, hours, now) {
  const step = hours * 3600 / STEPS;
  const to = Math.floor(now / 1e3 / step) * step + step;
  const from = to - STEPS * step;
  const rows = env.ENVIRONMENT === "development" && localSource ? localRows(localSource, from, step) : await analyticsRows(env, from, step);
  return {
    from,
    to,
    step_s: step,
    source: env.ENVIRONMENT === "development" && localSource ? "local" : "analytics_engine",
    series: seriesOf(rows, from, step)
  };
}
__name(chartsFor, "chartsFor");

// ../../../work/main/node_modules/hono/dist/middleware/csrf/index.js
var secFetchSiteValues = [
  "same-origin",
  "same-site",
  "none",
  "cross-site"
];
var isSecFetchSite = /* @__PURE__ */ __name((value) => secFetchSiteValues.includes(value), "isSecFetchSite");
var isSafeMethodRe = /^(GET|HEAD|OPTIONS)$/;
var isCsrfContentTypeRe = /^\b(application\/x-www-form-urlencoded|multipart\/form-data|text\/(?:plain|ping))\b/i;
var csrf = /* @__PURE__ */ __name((options) => {
  const originHandler = ((optsOrigin) => {
    if (!optsOrigin) return (origin, c) => origin === new URL(c.req.url).origin;
    else if (typeof optsOrigin === "string") return (origin) => origin === optsOrigin;
    else if (typeof optsOrigin === "function") return optsOrigin;
    else return (origin) => optsOrigin.includes(origin);
  })(options?.origin);
  const isAllowedOrigin = /* @__PURE__ */ __name(async (origin, c) => {
    if (origin === void 0) return false;
    return await originHandler(origin, c);
  }, "isAllowedOrigin");
  const secFetchSiteHandler = ((optsSecFetchSite) => {
    if (!optsSecFetchSite) return (secFetchSite) => secFetchSite === "same-origin";
    else if (typeof optsSecFetchSite === "string") return (secFetchSite) => secFetchSite === optsSecFetchSite;
    else if (typeof optsSecFetchSite === "function") return optsSecFetchSite;
    else return (secFetchSite) => optsSecFetchSite.includes(secFetchSite);
  })(options?.secFetchSite);
  const isAllowedSecFetchSite = /* @__PURE__ */ __name(async (secFetchSite, c) => {
    if (secFetchSite === void 0) return false;
    if (!isSecFetchSite(secFetchSite)) return false;
    return await secFetchSiteHandler(secFetchSite, c);
  }, "isAllowedSecFetchSite");
  return /* @__PURE__ */ __name(async function csrf2(c, next) {
    if (!isSafeMethodRe.test(c.req.method) && isCsrfContentTypeRe.test(c.req.header("content-type") || "text/plain") && !await isAllowedSecFetchSite(c.req.header("sec-fetch-site"), c) && !await isAllowedOrigin(c.req.header("origin"), c)) {
      const res = new Response("Forbidden", { status: 403 });
      throw new HTTPException(403, { res });
    }
    await next();
  }, "csrf");
}, "csrf");

// ../../../work/main/node_modules/hono/dist/helper/factory/index.js
var createMiddleware = /* @__PURE__ */ __name((middleware) => middleware, "createMiddleware");

// ../../../work/main/node_modules/hono/dist/middleware/secure-headers/secure-headers.js
var HEADERS_MAP = {
  crossOriginEmbedderPolicy: ["Cross-Origin-Embedder-Policy", "require-corp"],
  crossOriginResourcePolicy: ["Cross-Origin-Resource-Policy", "same-origin"],
  crossOriginOpenerPolicy: ["Cross-Origin-Opener-Policy", "same-origin"],
  originAgentCluster: ["Origin-Agent-Cluster", "?1"],
  referrerPolicy: ["Referrer-Policy", "no-referrer"],
  strictTransportSecurity: ["Strict-Transport-Security", "max-age=15552000; includeSubDomains"],
  xContentTypeOptions: ["X-Content-Type-Options", "nosniff"],
  xDnsPrefetchControl: ["X-DNS-Prefetch-Control", "off"],
  xDownloadOptions: ["X-Download-Options", "noopen"],
  xFrameOptions: ["X-Frame-Options", "SAMEORIGIN"],
  xPermittedCrossDomainPolicies: ["X-Permitted-Cross-Domain-Policies", "none"],
  xXssProtection: ["X-XSS-Protection", "0"]
};
var DEFAULT_OPTIONS2 = {
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: true,
  crossOriginOpenerPolicy: true,
  originAgentCluster: true,
  referrerPolicy: true,
  strictTransportSecurity: true,
  xContentTypeOptions: true,
  xDnsPrefetchControl: true,
  xDownloadOptions: true,
  xFrameOptions: true,
  xPermittedCrossDomainPolicies: true,
  xXssProtection: true,
  removePoweredBy: true,
  permissionsPolicy: {},
  overwrite: true
};
var secureHeaders = /* @__PURE__ */ __name((customOptions) => {
  const options = {
    ...DEFAULT_OPTIONS2,
    ...customOptions
  };
  const headersToSet = getFilteredHeaders(options);
  const callbacks = [];
  if (options.contentSecurityPolicy) {
    const [callback, value] = getCSPDirectives(options.contentSecurityPolicy, "Content-Security-Policy");
    if (callback) callbacks.push(callback);
    headersToSet.push(["Content-Security-Policy", value]);
  }
  if (options.contentSecurityPolicyReportOnly) {
    const [callback, value] = getCSPDirectives(options.contentSecurityPolicyReportOnly, "Content-Security-Policy-Report-Only");
    if (callback) callbacks.push(callback);
    headersToSet.push(["Content-Security-Policy-Report-Only", value]);
  }
  if (options.permissionsPolicy && Object.keys(options.permissionsPolicy).length > 0) headersToSet.push(["Permissions-Policy", getPermissionsPolicyDirectives(options.permissionsPolicy)]);
  if (options.reportingEndpoints) headersToSet.push(["Reporting-Endpoints", getReportingEndpoints(options.reportingEndpoints)]);
  if (options.reportTo) headersToSet.push(["Report-To", getReportToOptions(options.reportTo)]);
  return /* @__PURE__ */ __name(async function secureHeaders2(ctx, next) {
    const headersToSetForReq = callbacks.length === 0 ? headersToSet : callbacks.reduce((acc, cb) => cb(ctx, acc), headersToSet);
    await next();
    setHeaders(ctx, headersToSetForReq, options.overwrite !== false);
    if (options?.removePoweredBy) ctx.res.headers.delete("X-Powered-By");
  }, "secureHeaders");
}, "secureHeaders");
function getFilteredHeaders(options) {
  return Object.entries(HEADERS_MAP).filter(([key]) => options[key]).map(([key, defaultValue]) => {
    const overrideValue = options[key];
    return typeof overrideValue === "string" ? [defaultValue[0], overrideValue] : defaultValue;
  });
}
__name(getFilteredHeaders, "getFilteredHeaders");
function getCSPDirectives(contentSecurityPolicy, headerName) {
  const callbacks = [];
  const resultValues = [];
  for (const [directive, value] of Object.entries(contentSecurityPolicy)) {
    const valueArray = Array.isArray(value) ? value : [value];
    valueArray.forEach((value2, i) => {
      if (typeof value2 === "function") {
        const index = i * 2 + 2 + resultValues.length;
        callbacks.push((ctx, values) => {
          values[index] = value2(ctx, directive);
        });
      }
    });
    resultValues.push(directive.replace(/[A-Z]+(?![a-z])|[A-Z]/g, (match2, offset) => offset ? "-" + match2.toLowerCase() : match2.toLowerCase()), ...valueArray.flatMap((value2) => [" ", value2]), "; ");
  }
  resultValues.pop();
  return callbacks.length === 0 ? [void 0, resultValues.join("")] : [(ctx, headersToSet) => headersToSet.map((values) => {
    if (values[0] === headerName) {
      const clone = values[1].slice();
      callbacks.forEach((cb) => {
        cb(ctx, clone);
      });
      return [values[0], clone.join("")];
    } else return values;
  }), resultValues];
}
__name(getCSPDirectives, "getCSPDirectives");
function getPermissionsPolicyDirectives(policy) {
  return Object.entries(policy).map(([directive, value]) => {
    const kebabDirective = camelToKebab(directive);
    if (typeof value === "boolean") return `${kebabDirective}=${value ? "*" : "()"}`;
    if (Array.isArray(value)) {
      if (value.length === 0) return `${kebabDirective}=()`;
      if (value.length === 1 && value[0] === "*") return `${kebabDirective}=*`;
      if (value.length === 1 && value[0] === "none") return `${kebabDirective}=()`;
      return `${kebabDirective}=(${value.map((item) => ["self", "src"].includes(item) ? item : `"${item}"`).join(" ")})`;
    }
    return "";
  }).filter(Boolean).join(", ");
}
__name(getPermissionsPolicyDirectives, "getPermissionsPolicyDirectives");
function camelToKebab(str2) {
  return str2.replace(/([a-z\d])([A-Z])/g, "$1-$2").toLowerCase();
}
__name(camelToKebab, "camelToKebab");
function getReportingEndpoints(reportingEndpoints = []) {
  return reportingEndpoints.map((endpoint) => `${endpoint.name}="${endpoint.url}"`).join(", ");
}
__name(getReportingEndpoints, "getReportingEndpoints");
function getReportToOptions(reportTo = []) {
  return reportTo.map((option) => JSON.stringify(option)).join(", ");
}
__name(getReportToOptions, "getReportToOptions");
function setHeaders(ctx, headersToSet, overwrite) {
  headersToSet.forEach(([header2, value]) => {
    if (!overwrite && ctx.res.headers.has(header2)) return;
    ctx.res.headers.set(header2, value);
  });
}
__name(setHeaders, "setHeaders");

// src/config/config-lists.ts
var settingText = /* @__PURE__ */ __name((value) => typeof value === "string" ? value.trim() : "", "settingText");
var secretList = /* @__PURE__ */ __name((value) => settingText(value).split(/\s+/).filter(Boolean), "secretList");
var WEBHOOK_SECRET_PREFIX = "whsec_";
var MIN_WEBHOOK_SECRET_BYTES = 24;
var BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
function decodeBase64(text2) {
  if (!BASE64.test(text2)) return null;
  try {
    return Uint8Array.from(atob(text2), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
__name(decodeBase64, "decodeBase64");
function parseWebhookSecrets(value) {
  const keys = [];
  const problems = [];
  const entries = secretList(value);
  entries.forEach((entry, i) => {
    const name = entries.length > 1 ? `WEBHOOK_SECRET entry ${i + 1}` : "WEBHOOK_SECRET";
    const key = entry.startsWith(WEBHOOK_SECRET_PREFIX) ? decodeBase64(entry.slice(WEBHOOK_SECRET_PREFIX.length)) : null;
    if (!key) problems.push(`${name} is not of the form whsec_<base64>.`);
    else if (key.length < MIN_WEBHOOK_SECRET_BYTES)
      problems.push(`${name} encodes fewer than ${MIN_WEBHOOK_SECRET_BYTES} bytes; use 24 to 64 random bytes.`);
    else keys.push(key);
  });
  return { keys, problems };
}
__name(parseWebhookSecrets, "parseWebhookSecrets");
var DEFAULT_TID_INDEX_SHARDS = ["DB"];
var tidShardList = /* @__PURE__ */ __name((value) => {
  const names = settingText(value).split(/[\s,]+/).filter(Boolean);
  return names.length > 0 ? names : [...DEFAULT_TID_INDEX_SHARDS];
}, "tidShardList");
var previousTidShardLayouts = /* @__PURE__ */ __name((value) => settingText(value).split(";").map((list) => list.split(/[\s,]+/).filter(Boolean)).filter((list) => list.length > 0), "previousTidShardLayouts");
function tidShardListProblems(names, setting = "TID_INDEX_SHARDS") {
  const problems = [];
  const seen = /* @__PURE__ */ new Set();
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`${setting} names "${name}", which is not a binding name.`);
    else if (seen.has(name)) problems.push(`${setting} names ${name} twice: each tid must have exactly one database.`);
    seen.add(name);
  }
  return problems;
}
__name(tidShardListProblems, "tidShardListProblems");
var DURATION_UNIT_MS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5 };
var MAX_SCHEDULED_READS = 10;
function durationList(value) {
  const entries = settingText(value).split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0 || entries.length > MAX_SCHEDULED_READS) return null;
  const offsets = entries.map((entry) => {
    const match2 = /^(\d+(?:\.\d+)?)([smhd])$/.exec(entry);
    return match2 ? Math.round(Number(match2[1]) * DURATION_UNIT_MS[match2[2]]) : Number.NaN;
  });
  if (offsets.some((ms, i) => !Number.isFinite(ms) || ms <= 0 || i > 0 && ms <= offsets[i - 1])) return null;
  return offsets;
}
__name(durationList, "durationList");

// src/config/config-rules.ts
var DEVELOPMENT_PARTNER_KEY_DIGEST = "201db62f3c69cf8de8fe2450797a0c481469bb36ffc7e49ea916efb6bb68bd35";
var DEVELOPMENT_JWT_SECRET = "local-dev-jwt-secret";
var DEVELOPMENT_TID_SECRET = "local-dev-tid-secret";
var DEVELOPMENT_CARD_FINGERPRINT_SECRET = "local-dev-card-fingerprint-secret";
var DEVELOPMENT_WEBHOOK_SECRET = "whsec_bG9jYWwtZGV2LXdlYmhvb2stc2VjcmV0";
var SANDBOX_UPSTREAM_API_KEY = "sandbox-upstream-key";
var TEMPLATE_PLACEHOLDER = "REPLACE_ME";
var MIN_TID_SECRET_LENGTH = 32;
function parseUrl(value) {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
__name(parseUrl, "parseUrl");
function ipv4(host) {
  const parts2 = host.split(".");
  if (parts2.length !== 4 || !parts2.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts2.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}
__name(ipv4, "ipv4");
function ipv6(host) {
  const address = host.replace(/(\d+\.\d+\.\d+\.\d+)$/, (dotted) => {
    const v4 = ipv4(dotted);
    return v4 ? `${(v4[0] << 8 | v4[1]).toString(16)}:${(v4[2] << 8 | v4[3]).toString(16)}` : "invalid";
  });
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groupsOf = /* @__PURE__ */ __name((s) => s === "" ? [] : s.split(":"), "groupsOf");
  const head2 = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  const missing = 8 - head2.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head2, ...Array(missing).fill("0"), ...tail];
  return groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? groups.map((g) => Number.parseInt(g, 16)) : null;
}
__name(ipv6, "ipv6");
function ipv4Kind([a, b]) {
  if (a === 0) return "an unspecified address (0.0.0.0/8)";
  if (a === 127) return "a loopback address";
  if (a === 10 || a === 172 && b >= 16 && b <= 31 || a === 192 && b === 168) return "a private address";
  if (a === 169 && b === 254) return "a link-local address";
  if (a === 100 && b >= 64 && b <= 127) return "a carrier-grade NAT address (100.64.0.0/10)";
  return null;
}
__name(ipv4Kind, "ipv4Kind");
function ipv6Kind(groups) {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups;
  const embedded = [g6 >> 8, g6 & 255, g7 >> 8, g7 & 255];
  const zeroTo = /* @__PURE__ */ __name((n) => groups.slice(0, n).every((g) => g === 0), "zeroTo");
  if (zeroTo(8)) return "an unspecified address (::)";
  if (zeroTo(7) && g7 === 1) return "a loopback address";
  if (zeroTo(5) && g5 === 65535) return ipv4Kind(embedded);
  if (zeroTo(6)) return ipv4Kind(embedded);
  if (g0 === 100 && g1 === 65435 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embedded);
  if ((g0 & 65472) === 65152) return "a link-local address";
  if ((g0 & 65024) === 64512 || (g0 & 65472) === 65216) return "a private address";
  return null;
}
__name(ipv6Kind, "ipv6Kind");
function hostProblem(name, hostname) {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return `${name} points at localhost; production must call a public host name.`;
  const v4 = ipv4(host);
  const v6 = host.startsWith("[") && host.endsWith("]") ? ipv6(host.slice(1, -1)) : null;
  if (v4 || v6) {
    const kind = v4 ? ipv4Kind(v4) : ipv6Kind(v6);
    if (kind) return `${name} points at ${kind}; production must call a public host name.`;
    return `${name} is an IP address; production must call a public host name (a Worker cannot fetch an IP address).`;
  }
  if (host.startsWith("[")) return `${name} is not a valid host.`;
  if (!host.includes(".")) return `${name} is not a fully qualified host name; production must call a public host name.`;
  if (/\.(local|internal|home\.arpa|lan|intranet|corp)$/.test(host)) {
    return `${name} is a private network name; production must call a public host name.`;
  }
  return null;
}
__name(hostProblem, "hostProblem");
function productionUrlProblem(name, value) {
  const url = parseUrl(value);
  if (!url) return `${name} is not a URL.`;
  if (url.protocol !== "https:") return `${name} must be an https URL.`;
  if (url.username || url.password) return `${name} carries a user name or password; credentials belong in secrets, not in a URL.`;
  if (url.hostname.replace(/\.$/, "").endsWith(".invalid")) return `${name} is still the placeholder of wrangler.toml; set the real URL.`;
  return hostProblem(name, url.hostname);
}
__name(productionUrlProblem, "productionUrlProblem");
var FISCAL_READ_DEFAULTS = { production: "5m 1h 24h", development: "20s 60s 110s" };
var FISCAL_READS_UNREADABLE = `FISCAL_READS is not a list of 1 to ${MAX_SCHEDULED_READS} increasing durations (a number and s, m, h or d, e.g. "5m 1h 24h").`;
var FISCAL_READ_WINDOWS_MS = [3e5, 36e5, 864e5];
function fiscalReadProductionProblems(value) {
  if (settingText(value) === "") return [];
  const offsets = durationList(value);
  if (!offsets) return [FISCAL_READS_UNREADABLE];
  const covered = FISCAL_READ_WINDOWS_MS.every((from, i) => {
    const to = FISCAL_READ_WINDOWS_MS[i + 1] ?? Number.POSITIVE_INFINITY;
    return offsets.some((ms) => ms >= from && ms < to);
  });
  return covered ? [] : [
    "FISCAL_READS must read a fiscal-pending receipt at least 5 minutes, 1 hour and 24 hours after its payment or refund in production: one read from 5 minutes to 1 hour, one from 1 to 24 hours, one at 24 hours or later."
  ];
}
__name(fiscalReadProductionProblems, "fiscalReadProductionProblems");
var MIN_AUDIT_RETENTION_DAYS = 365;
function auditSettingProblems(vars, production) {
  const problems = [];
  const days = settingText(vars.AUDIT_RETENTION_DAYS);
  const n = Number(days);
  if (days !== "" && !(Number.isFinite(n) && n > 0)) problems.push("AUDIT_RETENTION_DAYS is not a positive number of days.");
  else if (production && days !== "" && n < MIN_AUDIT_RETENTION_DAYS)
    problems.push(`AUDIT_RETENTION_DAYS is under ${MIN_AUDIT_RETENTION_DAYS}: the audit trail must be kept a year (rule 15).`);
  const chains = settingText(vars.AUDIT_CHAINS);
  if (chains !== "" && !(Number.isInteger(Number(chains)) && Number(chains) >= 1 && Number(chains) <= 64))
    problems.push("AUDIT_CHAINS is not a whole number from 1 to 64.");
  const pagers = settingText(vars.EVENT_PAGERS);
  if (pagers !== "" && !(Number.isInteger(Number(pagers)) && Number(pagers) >= 1 && Number(pagers) <= 64))
    problems.push("EVENT_PAGERS is not a whole number from 1 to 64.");
  const flush = settingText(vars.AUDIT_FLUSH_SECONDS);
  if (flush !== "" && !(Number(flush) > 0 && Number(flush) <= 3600)) problems.push("AUDIT_FLUSH_SECONDS is not a number of seconds from 0 to 3600.");
  const share = settingText(vars.STATEMENT_CHECK_SHARE);
  if (share !== "" && !(Number(share) >= 0 && Number(share) <= 1)) problems.push("STATEMENT_CHECK_SHARE is not a share from 0 to 1.");
  const zone = settingText(vars.STATEMENT_TIMEZONE);
  if (zone !== "") {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
    } catch {
      problems.push("STATEMENT_TIMEZONE is not a time zone (an IANA name such as Asia/Tashkent).");
    }
  }
  return problems;
}
__name(auditSettingProblems, "auditSettingProblems");
var DEFAULT_CANCELLED_BY = "payments-gateway";
var MAX_CANCELLED_BY_LENGTH = 128;
function cancelledByName(value) {
  const name = settingText(value);
  if (name === "") return DEFAULT_CANCELLED_BY;
  return [...name].length <= MAX_CANCELLED_BY_LENGTH && !/\p{Cc}/u.test(name) ? name : null;
}
__name(cancelledByName, "cancelledByName");
var CANCELLED_BY_UNFIT = `GATEWAY_CANCELLED_BY is not a name of at most ${MAX_CANCELLED_BY_LENGTH} characters without control characters: users' cancels could not say who cancelled.`;
var PRODUCTION_JWT_CLAIMS = [
  ["JWT_ISSUER", "iss", "a token signed with a key of the set would be accepted whoever issued it"],
  ["JWT_AUDIENCE", "aud", "a token the identity provider issued for any of its applications would be accepted"]
];
function productionVarProblems(vars) {
  const problems = [];
  const jwksUrl = settingText(vars.JWKS_URL);
  if (!jwksUrl) problems.push("JWKS_URL is not set: users' JWTs cannot be verified.");
  else {
    const jwks = productionUrlProblem("JWKS_URL", jwksUrl);
    if (jwks) problems.push(jwks);
  }
  for (const [name, claim, risk] of PRODUCTION_JWT_CLAIMS) {
    if (!settingText(vars[name])) problems.push(`${name} is not set: ${risk}. Set it to the \`${claim}\` its tokens for this gateway carry.`);
  }
  const upstream = productionUrlProblem("UPSTREAM_BASE_URL", settingText(vars.UPSTREAM_BASE_URL));
  if (upstream) problems.push(upstream);
  const webhookUrl = settingText(vars.WEBHOOK_URL);
  if (!webhookUrl) problems.push("WEBHOOK_URL is not set: events cannot be delivered.");
  else {
    const webhook = productionUrlProblem("WEBHOOK_URL", webhookUrl);
    if (webhook) problems.push(webhook);
  }
  problems.push(...fiscalReadProductionProblems(vars.FISCAL_READS));
  problems.push(...auditSettingProblems(vars, true).filter((p) => p.startsWith("AUDIT_RETENTION_DAYS is under")));
  if (cancelledByName(vars.GATEWAY_CANCELLED_BY) === null) problems.push(CANCELLED_BY_UNFIT);
  problems.push(...accessVarProblems(vars));
  return problems;
}
__name(productionVarProblems, "productionVarProblems");
function accessVarProblems(vars) {
  const problems = [];
  const domain = settingText(vars.ACCESS_TEAM_DOMAIN);
  if (!domain) problems.push("ACCESS_TEAM_DOMAIN is not set: the console's Cloudflare Access tokens cannot be verified (docs/production.md).");
  else if (!/^(https:\/\/)?[a-z0-9-]+(\.[a-z0-9-]+)+\/?$/i.test(domain))
    problems.push("ACCESS_TEAM_DOMAIN is not a domain such as <team>.cloudflareaccess.com.");
  if (!settingText(vars.ACCESS_AUD)) problems.push("ACCESS_AUD is not set: set it to the Access application's audience (AUD) tag.");
  if (!settingText(vars.STAFF_ROLES)) problems.push("STAFF_ROLES is not set: nobody would have a role in the console.");
  return problems;
}
__name(accessVarProblems, "accessVarProblems");
function tidSecretProblems(value, upstreamApiKey) {
  if (settingText(value).includes(TEMPLATE_PLACEHOLDER)) return ["TID_SECRET is still the template's placeholder; set a random one."];
  const values = secretList(value);
  const problems = [];
  values.forEach((secret, i) => {
    const name = values.length > 1 ? `TID_SECRET entry ${i + 1}` : "TID_SECRET";
    if (secret === DEVELOPMENT_TID_SECRET) problems.push(`${name} is the development secret; set a random one of its own.`);
    else if (secret === settingText(upstreamApiKey)) {
      problems.push(`${name} equals UPSTREAM_API_KEY; it must be a secret of its own, so rotating the upstream credential changes no tid.`);
    } else if (secret.length < MIN_TID_SECRET_LENGTH) problems.push(`${name} is shorter than ${MIN_TID_SECRET_LENGTH} characters.`);
  });
  if (new Set(values).size !== values.length) problems.push("TID_SECRET holds the same value twice.");
  return problems;
}
__name(tidSecretProblems, "tidSecretProblems");
function cardFingerprintSecretProblems(value, others) {
  const secret = settingText(value);
  if (!secret) return ["CARD_FINGERPRINT_SECRET is not set: rule 13 cannot count cards."];
  if (secret.includes(TEMPLATE_PLACEHOLDER)) return ["CARD_FINGERPRINT_SECRET is still the template's placeholder; set a random one."];
  if (secret === DEVELOPMENT_CARD_FINGERPRINT_SECRET) return ["CARD_FINGERPRINT_SECRET is the development secret; set a random one of its own."];
  for (const name of ["UPSTREAM_API_KEY", "TID_SECRET", "WEBHOOK_SECRET"]) {
    if (secretList(others[name]).includes(secret)) return [`CARD_FINGERPRINT_SECRET equals ${name}; it must be a secret of its own.`];
  }
  if (secret.length < MIN_TID_SECRET_LENGTH) return [`CARD_FINGERPRINT_SECRET is shorter than ${MIN_TID_SECRET_LENGTH} characters.`];
  return [];
}
__name(cardFingerprintSecretProblems, "cardFingerprintSecretProblems");
function productionSecretProblems(secrets) {
  const problems = [];
  const digests = settingText(secrets.PARTNER_KEY_HASHES).split(",").map((s) => s.trim()).filter(Boolean);
  if (digests.includes(DEVELOPMENT_PARTNER_KEY_DIGEST)) {
    problems.push("PARTNER_KEY_HASHES holds the digest of the development server key; remove it.");
  }
  if (settingText(secrets.ACCESS_DEV_SECRET)) {
    problems.push("ACCESS_DEV_SECRET is set; it signs the console's development sign-in, which production never serves. Delete the secret.");
  }
  const jwtSecret = settingText(secrets.JWT_SECRET);
  if (jwtSecret === DEVELOPMENT_JWT_SECRET) {
    problems.push("JWT_SECRET is the development secret; production verifies users' JWTs against JWKS_URL only. Delete the secret.");
  } else if (jwtSecret) {
    problems.push("JWT_SECRET is set; production verifies users' JWTs against JWKS_URL only (no shared-secret HS256). Delete the secret.");
  }
  problems.push(...tidSecretProblems(secrets.TID_SECRET, secrets.UPSTREAM_API_KEY));
  problems.push(...cardFingerprintSecretProblems(secrets.CARD_FINGERPRINT_SECRET, secrets));
  const apiKey = settingText(secrets.UPSTREAM_API_KEY);
  if (!apiKey) problems.push("UPSTREAM_API_KEY is not set.");
  else if (apiKey === SANDBOX_UPSTREAM_API_KEY) problems.push("UPSTREAM_API_KEY is the sandbox's development key.");
  const webhookSecrets = secretList(secrets.WEBHOOK_SECRET);
  if (webhookSecrets.length === 0) problems.push("WEBHOOK_SECRET is not set: events cannot be signed.");
  if (webhookSecrets.includes(DEVELOPMENT_WEBHOOK_SECRET)) {
    problems.push("WEBHOOK_SECRET holds the development secret; set the secret shared with the partner's receiver.");
  }
  for (const name of ["UPSTREAM_API_KEY", "PARTNER_KEY_HASHES", "WEBHOOK_SECRET"]) {
    if (settingText(secrets[name]).includes(TEMPLATE_PLACEHOLDER)) problems.push(`${name} is still the template's placeholder; set the real value.`);
  }
  return problems;
}
__name(productionSecretProblems, "productionSecretProblems");

// src/config/config.ts
var EXPIRY_SETTINGS = {
  RECEIPT_EXPIRY_HOURS: { unitMs: 36e5, fallback: 24 },
  HOLD_EXPIRY_DAYS: { unitMs: 864e5, fallback: 7 }
};
function windowValue(value, fallback) {
  if (value === void 0 || value.trim() === "") return fallback;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : null;
}
__name(windowValue, "windowValue");
var windowMs = /* @__PURE__ */ __name((env, name) => {
  const { unitMs, fallback } = EXPIRY_SETTINGS[name];
  return (windowValue(env[name], fallback) ?? fallback) * unitMs;
}, "windowMs");
var expiryProblems = /* @__PURE__ */ __name((env) => Object.keys(EXPIRY_SETTINGS).filter((name) => windowValue(env[name], EXPIRY_SETTINGS[name].fallback) === null).map((name) => `${name} is not a positive number (fractions are accepted).`), "expiryProblems");
function fiscalReadSchedule(env) {
  const fallback = durationList(env.ENVIRONMENT === "development" ? FISCAL_READ_DEFAULTS.development : FISCAL_READ_DEFAULTS.production);
  return settingText(env.FISCAL_READS) === "" ? fallback : durationList(env.FISCAL_READS) ?? fallback;
}
__name(fiscalReadSchedule, "fiscalReadSchedule");
function logSampleValue(value) {
  const text2 = settingText(value);
  if (text2 === "") return 1;
  const n = Number(text2);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}
__name(logSampleValue, "logSampleValue");
var logSampleProblems = /* @__PURE__ */ __name((env) => logSampleValue(env.LOG_SUCCESS_SAMPLE) === null ? ["LOG_SUCCESS_SAMPLE is not a share from 0 to 1."] : [], "logSampleProblems");
var cancelledByProblems = /* @__PURE__ */ __name((env) => cancelledByName(env.GATEWAY_CANCELLED_BY) === null ? [CANCELLED_BY_UNFIT] : [], "cancelledByProblems");
var fiscalReadProblems = /* @__PURE__ */ __name((env) => settingText(env.FISCAL_READS) !== "" && durationList(env.FISCAL_READS) === null ? [FISCAL_READS_UNREADABLE] : [], "fiscalReadProblems");
var cache = /* @__PURE__ */ new WeakMap();
function intVar(value, fallback) {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
__name(intVar, "intVar");
var DIGEST = /^[0-9a-f]{64}$/;
function hexBytes(hex2) {
  const bytes2 = new Uint8Array(hex2.length / 2);
  for (let i = 0; i < bytes2.length; i++) bytes2[i] = Number.parseInt(hex2.slice(2 * i, 2 * i + 2), 16);
  return bytes2;
}
__name(hexBytes, "hexBytes");
var partnerKeyHashes = /* @__PURE__ */ __name((env) => (env.PARTNER_KEY_HASHES ?? "").split(",").map((s) => s.trim()).filter(Boolean), "partnerKeyHashes");
function readConfig(env) {
  let config = cache.get(env);
  if (!config) {
    const jwksUrl = (env.JWKS_URL ?? "").trim();
    const jwtSecret = env.JWT_SECRET ?? "";
    const claims = {
      ...env.JWT_ISSUER ? { issuer: env.JWT_ISSUER } : {},
      ...env.JWT_AUDIENCE ? { audience: env.JWT_AUDIENCE } : {}
    };
    config = {
      environment: env.ENVIRONMENT,
      upstreamBaseUrl: (env.UPSTREAM_BASE_URL ?? "").replace(/\/+$/, ""),
      upstreamTimeoutMs: intVar(env.UPSTREAM_TIMEOUT_MS, 1e4),
      upstreamApiKey: env.UPSTREAM_API_KEY ?? "",
      tidSecret: secretList(env.TID_SECRET)[0] ?? "",
      formerTidSecrets: secretList(env.TID_SECRET).slice(1),
      holdEnabled: env.HOLD_ENABLED === "true",
      qrMerchantIds: new Set(
        (env.QR_MERCHANT_IDS ?? "").split(",").map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0)
      ),
      partnerKeyDigests: partnerKeyHashes(env).filter((d) => DIGEST.test(d)).map(hexBytes),
      // A JWKS deployment accepts only the asymmetric algorithms, whatever JWT_SECRET says.
      userTokens: jwksUrl ? { mode: "jwks", jwksUrl, algorithms: ["RS256", "ES256"], ...claims } : jwtSecret ? { mode: "shared-secret", secret: new TextEncoder().encode(jwtSecret), algorithms: ["HS256"], ...claims } : null,
      webhook: {
        url: (env.WEBHOOK_URL ?? "").trim(),
        keys: parseWebhookSecrets(env.WEBHOOK_SECRET).keys,
        timeoutMs: intVar(env.WEBHOOK_TIMEOUT_MS, 1e4)
      },
      expiry: { unpaidMs: windowMs(env, "RECEIPT_EXPIRY_HOURS"), heldMs: windowMs(env, "HOLD_EXPIRY_DAYS") },
      fiscalReads: fiscalReadSchedule(env),
      cancelledBy: cancelledByName(env.GATEWAY_CANCELLED_BY) ?? DEFAULT_CANCELLED_BY,
      // Until the guard refuses to serve with an unreadable value, every line is written.
      logSuccessSample: logSampleValue(env.LOG_SUCCESS_SAMPLE) ?? 1
    };
    cache.set(env, config);
  }
  return config;
}
__name(readConfig, "readConfig");
function credentialProblems(env) {
  const problems = [];
  const digests = partnerKeyHashes(env);
  const jwksUrl = (env.JWKS_URL ?? "").trim();
  if (digests.length === 0) problems.push("PARTNER_KEY_HASHES is not set: no partner server key can be accepted.");
  digests.forEach((digest, i) => {
    if (!DIGEST.test(digest)) problems.push(`PARTNER_KEY_HASHES entry ${i + 1} is not a lowercase hex SHA-256 digest.`);
  });
  if (jwksUrl && !parseUrl(jwksUrl)) problems.push("JWKS_URL is not a URL.");
  if (!jwksUrl && !env.JWT_SECRET) problems.push("Neither JWKS_URL nor JWT_SECRET is set: users' JWTs cannot be verified.");
  if (secretList(env.TID_SECRET).length === 0) problems.push("TID_SECRET is not set: users' tids cannot be kept apart (rule 9).");
  if (!(env.CARD_FINGERPRINT_SECRET ?? "")) problems.push("CARD_FINGERPRINT_SECRET is not set: rule 13 cannot count cards.");
  return problems;
}
__name(credentialProblems, "credentialProblems");
var webhookSecretProblems = /* @__PURE__ */ __name((env) => parseWebhookSecrets(env.WEBHOOK_SECRET).problems, "webhookSecretProblems");
function productionProblems(env) {
  if (env.ENVIRONMENT === "development") return [];
  const problems = [];
  if (env.UPSTREAM) {
    problems.push("The UPSTREAM binding (the sandbox) is present; production reaches the real upstream at UPSTREAM_BASE_URL.");
  }
  const settings = env;
  const everywhere = /* @__PURE__ */ new Set(["JWKS_URL is not a URL.", FISCAL_READS_UNREADABLE, CANCELLED_BY_UNFIT]);
  problems.push(...productionVarProblems(settings).filter((p) => !everywhere.has(p)));
  problems.push(...productionSecretProblems(settings));
  return problems;
}
__name(productionProblems, "productionProblems");

// src/d1/fanout.ts
var MAX_CONNECTIONS = 6;
var QUERY_BUDGET = 700;
async function inPool(items, fn, limit = MAX_CONNECTIONS) {
  const results = new Array(items.length);
  let next = 0;
  let failure = null;
  const worker = /* @__PURE__ */ __name(async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  }, "worker");
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw failure.error;
  return results;
}
__name(inPool, "inPool");
function cronSlice(items, perRun, runIndex) {
  if (items.length <= perRun) return [...items];
  const turns = Math.ceil(items.length / perRun);
  const turn = (Math.floor(runIndex) % turns + turns) % turns;
  return items.slice(turn * perRun, (turn + 1) * perRun);
}
__name(cronSlice, "cronSlice");
var databasesPerRun = /* @__PURE__ */ __name((queriesPerDatabase, budget = QUERY_BUDGET) => Math.max(1, Math.floor(budget / Math.max(1, queriesPerDatabase))), "databasesPerRun");
function probeSample(items, size, at) {
  if (items.length <= size) return [...items];
  const rest = items.slice(1);
  const take = size - 1;
  const start = Math.floor(at / 1e3) * take % rest.length;
  return [items[0], ...Array.from({ length: take }, (_, i) => rest[(start + i) % rest.length])];
}
__name(probeSample, "probeSample");

// ../../../work/main/node_modules/valibot/dist/index.mjs
var store$4;
var DEFAULT_CONFIG = {
  lang: void 0,
  message: void 0,
  abortEarly: void 0,
  abortPipeEarly: void 0
};
// @__NO_SIDE_EFFECTS__
function getGlobalConfig(config$1) {
  if (!config$1 && !store$4) return DEFAULT_CONFIG;
  return {
    lang: config$1?.lang ?? store$4?.lang,
    message: config$1?.message,
    abortEarly: config$1?.abortEarly ?? store$4?.abortEarly,
    abortPipeEarly: config$1?.abortPipeEarly ?? store$4?.abortPipeEarly
  };
}
__name(getGlobalConfig, "getGlobalConfig");
var store$3;
function setGlobalMessage(message$1, lang) {
  if (!store$3) store$3 = /* @__PURE__ */ new Map();
  store$3.set(lang, message$1);
}
__name(setGlobalMessage, "setGlobalMessage");
// @__NO_SIDE_EFFECTS__
function getGlobalMessage(lang) {
  return store$3?.get(lang);
}
__name(getGlobalMessage, "getGlobalMessage");
var store$2;
// @__NO_SIDE_EFFECTS__
function getSchemaMessage(lang) {
  return store$2?.get(lang);
}
__name(getSchemaMessage, "getSchemaMessage");
var store$1;
// @__NO_SIDE_EFFECTS__
function getSpecificMessage(reference, lang) {
  return store$1?.get(reference)?.get(lang);
}
__name(getSpecificMessage, "getSpecificMessage");
// @__NO_SIDE_EFFECTS__
function _stringify(input) {
  const type = typeof input;
  if (type === "string") return `"${input}"`;
  if (type === "number" || type === "bigint" || type === "boolean") return `${input}`;
  if (type === "object" || type === "function") return (input && Object.getPrototypeOf(input)?.constructor?.name) ?? "null";
  return type;
}
__name(_stringify, "_stringify");
function _addIssue(context, label, dataset, config$1, other) {
  const input = other && "input" in other ? other.input : dataset.value;
  const expected = other?.expected ?? context.expects ?? null;
  const received = other?.received ?? /* @__PURE__ */ _stringify(input);
  const issue = {
    kind: context.kind,
    type: context.type,
    input,
    expected,
    received,
    message: `Invalid ${label}: ${expected ? `Expected ${expected} but r` : "R"}eceived ${received}`,
    requirement: context.requirement,
    path: other?.path,
    issues: other?.issues,
    lang: config$1.lang,
    abortEarly: config$1.abortEarly,
    abortPipeEarly: config$1.abortPipeEarly
  };
  const isSchema = context.kind === "schema";
  const message$1 = other?.message ?? context.message ?? /* @__PURE__ */ getSpecificMessage(context.reference, issue.lang) ?? (isSchema ? /* @__PURE__ */ getSchemaMessage(issue.lang) : null) ?? config$1.message ?? /* @__PURE__ */ getGlobalMessage(issue.lang);
  if (message$1 !== void 0) issue.message = typeof message$1 === "function" ? message$1(issue) : message$1;
  if (isSchema) dataset.typed = false;
  if (dataset.issues) dataset.issues.push(issue);
  else dataset.issues = [issue];
}
__name(_addIssue, "_addIssue");
// @__NO_SIDE_EFFECTS__
function _isSameValueZero(value1, value2) {
  return value1 === value2 || Number.isNaN(value1) && Number.isNaN(value2);
}
__name(_isSameValueZero, "_isSameValueZero");
// @__NO_SIDE_EFFECTS__
function _isValidObjectKey(object$1, key) {
  return Object.prototype.hasOwnProperty.call(object$1, key) && key !== "__proto__" && key !== "prototype" && key !== "constructor";
}
__name(_isValidObjectKey, "_isValidObjectKey");
// @__NO_SIDE_EFFECTS__
function _joinExpects(values$1, separator) {
  const list = [...new Set(values$1)];
  if (list.length > 1) return `(${list.join(` ${separator} `)})`;
  return list[0] ?? "never";
}
__name(_joinExpects, "_joinExpects");
function _standardSchema(schema) {
  schema["~standard"] = {
    version: 1,
    vendor: "valibot",
    validate: /* @__PURE__ */ __name((value$1) => schema["~run"]({ value: value$1 }, /* @__PURE__ */ getGlobalConfig()), "validate")
  };
  return schema;
}
__name(_standardSchema, "_standardSchema");
// @__NO_SIDE_EFFECTS__
function getDotPath(issue) {
  if (issue.path) {
    let key = "";
    for (const item of issue.path) if (typeof item.key === "string" || typeof item.key === "number") if (key) key += `.${item.key}`;
    else key += item.key;
    else return null;
    return key;
  }
  return null;
}
__name(getDotPath, "getDotPath");
var EMAIL_REGEX = /^[\w+-]+(?:\.[\w+-]+)*@[\da-zA-Z]+(?:[.-][\da-zA-Z]+)*\.[a-zA-Z]{2,}$/u;
var ISO_TIMESTAMP_REGEX = /^\d{4}-(?:0[1-9]|1[0-2])-(?:[12]\d|0[1-9]|3[01])[T ](?:0\d|1\d|2[0-3])(?::[0-5]\d){2}(?:\.\d{1,9})?(?:Z| ?[+-](?:0\d|1\d|2[0-3])(?::?[0-5]\d)?)$/u;
// @__NO_SIDE_EFFECTS__
function check(requirement, message$1) {
  return {
    kind: "validation",
    type: "check",
    reference: check,
    async: false,
    expects: null,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement(dataset.value)) _addIssue(this, "input", dataset, config$1);
      return dataset;
    }
  };
}
__name(check, "check");
// @__NO_SIDE_EFFECTS__
function description(description_) {
  return {
    kind: "metadata",
    type: "description",
    reference: description,
    description: description_
  };
}
__name(description, "description");
// @__NO_SIDE_EFFECTS__
function email(message$1) {
  return {
    kind: "validation",
    type: "email",
    reference: email,
    expects: null,
    async: false,
    requirement: EMAIL_REGEX,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement.test(dataset.value)) _addIssue(this, "email", dataset, config$1);
      return dataset;
    }
  };
}
__name(email, "email");
// @__NO_SIDE_EFFECTS__
function examples(examples_) {
  return {
    kind: "metadata",
    type: "examples",
    reference: examples,
    examples: examples_
  };
}
__name(examples, "examples");
// @__NO_SIDE_EFFECTS__
function integer(message$1) {
  return {
    kind: "validation",
    type: "integer",
    reference: integer,
    async: false,
    expects: null,
    requirement: Number.isInteger,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement(dataset.value)) _addIssue(this, "integer", dataset, config$1);
      return dataset;
    }
  };
}
__name(integer, "integer");
// @__NO_SIDE_EFFECTS__
function isoTimestamp(message$1) {
  return {
    kind: "validation",
    type: "iso_timestamp",
    reference: isoTimestamp,
    async: false,
    expects: null,
    requirement: ISO_TIMESTAMP_REGEX,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement.test(dataset.value)) _addIssue(this, "timestamp", dataset, config$1);
      return dataset;
    }
  };
}
__name(isoTimestamp, "isoTimestamp");
// @__NO_SIDE_EFFECTS__
function maxLength(requirement, message$1) {
  return {
    kind: "validation",
    type: "max_length",
    reference: maxLength,
    async: false,
    expects: `<=${requirement}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && dataset.value.length > this.requirement) _addIssue(this, "length", dataset, config$1, { received: `${dataset.value.length}` });
      return dataset;
    }
  };
}
__name(maxLength, "maxLength");
// @__NO_SIDE_EFFECTS__
function maxValue(requirement, message$1) {
  return {
    kind: "validation",
    type: "max_value",
    reference: maxValue,
    async: false,
    expects: `<=${requirement instanceof Date ? requirement.toJSON() : /* @__PURE__ */ _stringify(requirement)}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !(dataset.value <= this.requirement)) _addIssue(this, "value", dataset, config$1, { received: dataset.value instanceof Date ? dataset.value.toJSON() : /* @__PURE__ */ _stringify(dataset.value) });
      return dataset;
    }
  };
}
__name(maxValue, "maxValue");
// @__NO_SIDE_EFFECTS__
function metadata(metadata_) {
  return {
    kind: "metadata",
    type: "metadata",
    reference: metadata,
    metadata: metadata_
  };
}
__name(metadata, "metadata");
// @__NO_SIDE_EFFECTS__
function minLength(requirement, message$1) {
  return {
    kind: "validation",
    type: "min_length",
    reference: minLength,
    async: false,
    expects: `>=${requirement}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && dataset.value.length < this.requirement) _addIssue(this, "length", dataset, config$1, { received: `${dataset.value.length}` });
      return dataset;
    }
  };
}
__name(minLength, "minLength");
// @__NO_SIDE_EFFECTS__
function minValue(requirement, message$1) {
  return {
    kind: "validation",
    type: "min_value",
    reference: minValue,
    async: false,
    expects: `>=${requirement instanceof Date ? requirement.toJSON() : /* @__PURE__ */ _stringify(requirement)}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !(dataset.value >= this.requirement)) _addIssue(this, "value", dataset, config$1, { received: dataset.value instanceof Date ? dataset.value.toJSON() : /* @__PURE__ */ _stringify(dataset.value) });
      return dataset;
    }
  };
}
__name(minValue, "minValue");
// @__NO_SIDE_EFFECTS__
function regex(requirement, message$1) {
  return {
    kind: "validation",
    type: "regex",
    reference: regex,
    async: false,
    expects: `${requirement}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement.test(dataset.value)) _addIssue(this, "format", dataset, config$1);
      return dataset;
    }
  };
}
__name(regex, "regex");
// @__NO_SIDE_EFFECTS__
function safeInteger(message$1) {
  return {
    kind: "validation",
    type: "safe_integer",
    reference: safeInteger,
    async: false,
    expects: null,
    requirement: Number.isSafeInteger,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement(dataset.value)) _addIssue(this, "safe integer", dataset, config$1);
      return dataset;
    }
  };
}
__name(safeInteger, "safeInteger");
// @__NO_SIDE_EFFECTS__
function title(title_) {
  return {
    kind: "metadata",
    type: "title",
    reference: title,
    title: title_
  };
}
__name(title, "title");
// @__NO_SIDE_EFFECTS__
function toLowerCase() {
  return {
    kind: "transformation",
    type: "to_lower_case",
    reference: toLowerCase,
    async: false,
    "~run"(dataset) {
      dataset.value = dataset.value.toLowerCase();
      return dataset;
    }
  };
}
__name(toLowerCase, "toLowerCase");
// @__NO_SIDE_EFFECTS__
function transform(operation2) {
  return {
    kind: "transformation",
    type: "transform",
    reference: transform,
    async: false,
    operation: operation2,
    "~run"(dataset) {
      dataset.value = this.operation(dataset.value);
      return dataset;
    }
  };
}
__name(transform, "transform");
// @__NO_SIDE_EFFECTS__
function trim() {
  return {
    kind: "transformation",
    type: "trim",
    reference: trim,
    async: false,
    "~run"(dataset) {
      dataset.value = dataset.value.trim();
      return dataset;
    }
  };
}
__name(trim, "trim");
var ABORT_EARLY_CONFIG = { abortEarly: true };
// @__NO_SIDE_EFFECTS__
function getFallback(schema, dataset, config$1) {
  return typeof schema.fallback === "function" ? schema.fallback(dataset, config$1) : schema.fallback;
}
__name(getFallback, "getFallback");
// @__NO_SIDE_EFFECTS__
function getDefault(schema, dataset, config$1) {
  return typeof schema.default === "function" ? schema.default(dataset, config$1) : schema.default;
}
__name(getDefault, "getDefault");
// @__NO_SIDE_EFFECTS__
function array(item, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "array",
    reference: array,
    expects: "Array",
    async: false,
    item,
    message: message$1,
    "~run"(dataset, config$1) {
      const input = dataset.value;
      if (Array.isArray(input)) {
        dataset.typed = true;
        dataset.value = [];
        for (let key = 0; key < input.length; key++) {
          const value$1 = input[key];
          const itemDataset = this.item["~run"]({ value: value$1 }, config$1);
          if (itemDataset.issues) {
            const pathItem = {
              type: "array",
              origin: "value",
              input,
              key,
              value: value$1
            };
            for (const issue of itemDataset.issues) {
              if (issue.path) issue.path.unshift(pathItem);
              else issue.path = [pathItem];
              dataset.issues?.push(issue);
            }
            if (!dataset.issues) dataset.issues = itemDataset.issues;
            if (config$1.abortEarly) {
              dataset.typed = false;
              break;
            }
          }
          if (!itemDataset.typed) dataset.typed = false;
          dataset.value.push(itemDataset.value);
        }
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(array, "array");
// @__NO_SIDE_EFFECTS__
function boolean(message$1) {
  return _standardSchema({
    kind: "schema",
    type: "boolean",
    reference: boolean,
    expects: "boolean",
    async: false,
    message: message$1,
    "~run"(dataset, config$1) {
      if (typeof dataset.value === "boolean") dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(boolean, "boolean");
// @__NO_SIDE_EFFECTS__
function _merge(value1, value2) {
  if (typeof value1 === typeof value2) {
    if (/* @__PURE__ */ _isSameValueZero(value1, value2) || value1 instanceof Date && value2 instanceof Date && /* @__PURE__ */ _isSameValueZero(+value1, +value2)) return { value: value1 };
    if (value1 && value2 && value1.constructor === Object && value2.constructor === Object) {
      const nextValue = {
        ...value1,
        ...value2
      };
      for (const key in value2) if (Object.prototype.hasOwnProperty.call(value1, key) && Object.prototype.hasOwnProperty.call(value2, key)) {
        const dataset = /* @__PURE__ */ _merge(value1[key], value2[key]);
        if (dataset.issue) return dataset;
        nextValue[key] = dataset.value;
      }
      return { value: nextValue };
    }
    if (Array.isArray(value1) && Array.isArray(value2)) {
      if (value1.length === value2.length) {
        const nextValue = [...value1];
        for (let index = 0; index < value1.length; index++) {
          const dataset = /* @__PURE__ */ _merge(value1[index], value2[index]);
          if (dataset.issue) return dataset;
          nextValue[index] = dataset.value;
        }
        return { value: nextValue };
      }
    }
  }
  return { issue: true };
}
__name(_merge, "_merge");
// @__NO_SIDE_EFFECTS__
function intersect(options, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "intersect",
    reference: intersect,
    expects: /* @__PURE__ */ _joinExpects(options.map((option) => option.expects), "&"),
    async: false,
    options,
    message: message$1,
    "~run"(dataset, config$1) {
      if (this.options.length) {
        const input = dataset.value;
        let outputs;
        dataset.typed = true;
        for (const schema of this.options) {
          const optionDataset = schema["~run"]({ value: input }, config$1);
          if (optionDataset.issues) {
            if (dataset.issues) for (const issue of optionDataset.issues) dataset.issues.push(issue);
            else dataset.issues = optionDataset.issues;
            if (config$1.abortEarly) {
              dataset.typed = false;
              break;
            }
          }
          if (!optionDataset.typed) dataset.typed = false;
          if (dataset.typed) if (outputs) outputs.push(optionDataset.value);
          else outputs = [optionDataset.value];
        }
        if (dataset.typed) {
          dataset.value = outputs[0];
          for (let index = 1; index < outputs.length; index++) {
            const mergeDataset = /* @__PURE__ */ _merge(dataset.value, outputs[index]);
            if (mergeDataset.issue) {
              _addIssue(this, "type", dataset, config$1, { received: "unknown" });
              break;
            }
            dataset.value = mergeDataset.value;
          }
        }
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(intersect, "intersect");
// @__NO_SIDE_EFFECTS__
function literal(literal_, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "literal",
    reference: literal,
    expects: /* @__PURE__ */ _stringify(literal_),
    async: false,
    literal: literal_,
    message: message$1,
    "~run"(dataset, config$1) {
      if (/* @__PURE__ */ _isSameValueZero(dataset.value, this.literal)) dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(literal, "literal");
// @__NO_SIDE_EFFECTS__
function looseObject(entries$1, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "loose_object",
    reference: looseObject,
    expects: "Object",
    async: false,
    entries: entries$1,
    message: message$1,
    "~run"(dataset, config$1) {
      const input = dataset.value;
      if (input && typeof input === "object") {
        dataset.typed = true;
        dataset.value = {};
        for (const key in this.entries) {
          const valueSchema = this.entries[key];
          if (key in input || (valueSchema.type === "exact_optional" || valueSchema.type === "optional" || valueSchema.type === "nullish") && valueSchema.default !== void 0) {
            const value$1 = key in input ? input[key] : /* @__PURE__ */ getDefault(valueSchema);
            const valueDataset = valueSchema["~run"]({ value: value$1 }, config$1);
            if (valueDataset.issues) {
              const pathItem = {
                type: "object",
                origin: "value",
                input,
                key,
                value: value$1
              };
              for (const issue of valueDataset.issues) {
                if (issue.path) issue.path.unshift(pathItem);
                else issue.path = [pathItem];
                dataset.issues?.push(issue);
              }
              if (!dataset.issues) dataset.issues = valueDataset.issues;
              if (config$1.abortEarly) {
                dataset.typed = false;
                break;
              }
            }
            if (!valueDataset.typed) dataset.typed = false;
            dataset.value[key] = valueDataset.value;
          } else if (valueSchema.fallback !== void 0) dataset.value[key] = /* @__PURE__ */ getFallback(valueSchema);
          else if (valueSchema.type !== "exact_optional" && valueSchema.type !== "optional" && valueSchema.type !== "nullish") {
            _addIssue(this, "key", dataset, config$1, {
              input: void 0,
              expected: `"${key}"`,
              path: [{
                type: "object",
                origin: "key",
                input,
                key,
                value: input[key]
              }]
            });
            if (config$1.abortEarly) break;
          }
        }
        if (!dataset.issues || !config$1.abortEarly) {
          for (const key in input) if (/* @__PURE__ */ _isValidObjectKey(input, key) && !Object.prototype.hasOwnProperty.call(this.entries, key)) dataset.value[key] = input[key];
        }
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(looseObject, "looseObject");
// @__NO_SIDE_EFFECTS__
function nullable(wrapped, default_) {
  return _standardSchema({
    kind: "schema",
    type: "nullable",
    reference: nullable,
    expects: `(${wrapped.expects} | null)`,
    async: false,
    wrapped,
    default: default_,
    "~run"(dataset, config$1) {
      if (dataset.value === null) {
        if (this.default !== void 0) dataset.value = /* @__PURE__ */ getDefault(this, dataset, config$1);
        if (dataset.value === null) {
          dataset.typed = true;
          return dataset;
        }
      }
      return this.wrapped["~run"](dataset, config$1);
    }
  });
}
__name(nullable, "nullable");
// @__NO_SIDE_EFFECTS__
function number(message$1) {
  return _standardSchema({
    kind: "schema",
    type: "number",
    reference: number,
    expects: "number",
    async: false,
    message: message$1,
    "~run"(dataset, config$1) {
      if (typeof dataset.value === "number" && !isNaN(dataset.value)) dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(number, "number");
// @__NO_SIDE_EFFECTS__
function object(entries$1, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "object",
    reference: object,
    expects: "Object",
    async: false,
    entries: entries$1,
    message: message$1,
    "~run"(dataset, config$1) {
      const input = dataset.value;
      if (input && typeof input === "object") {
        dataset.typed = true;
        dataset.value = {};
        for (const key in this.entries) {
          const valueSchema = this.entries[key];
          if (key in input || (valueSchema.type === "exact_optional" || valueSchema.type === "optional" || valueSchema.type === "nullish") && valueSchema.default !== void 0) {
            const value$1 = key in input ? input[key] : /* @__PURE__ */ getDefault(valueSchema);
            const valueDataset = valueSchema["~run"]({ value: value$1 }, config$1);
            if (valueDataset.issues) {
              const pathItem = {
                type: "object",
                origin: "value",
                input,
                key,
                value: value$1
              };
              for (const issue of valueDataset.issues) {
                if (issue.path) issue.path.unshift(pathItem);
                else issue.path = [pathItem];
                dataset.issues?.push(issue);
              }
              if (!dataset.issues) dataset.issues = valueDataset.issues;
              if (config$1.abortEarly) {
                dataset.typed = false;
                break;
              }
            }
            if (!valueDataset.typed) dataset.typed = false;
            dataset.value[key] = valueDataset.value;
          } else if (valueSchema.fallback !== void 0) dataset.value[key] = /* @__PURE__ */ getFallback(valueSchema);
          else if (valueSchema.type !== "exact_optional" && valueSchema.type !== "optional" && valueSchema.type !== "nullish") {
            _addIssue(this, "key", dataset, config$1, {
              input: void 0,
              expected: `"${key}"`,
              path: [{
                type: "object",
                origin: "key",
                input,
                key,
                value: input[key]
              }]
            });
            if (config$1.abortEarly) break;
          }
        }
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(object, "object");
// @__NO_SIDE_EFFECTS__
function optional(wrapped, default_) {
  return _standardSchema({
    kind: "schema",
    type: "optional",
    reference: optional,
    expects: `(${wrapped.expects} | undefined)`,
    async: false,
    wrapped,
    default: default_,
    "~run"(dataset, config$1) {
      if (dataset.value === void 0) {
        if (this.default !== void 0) dataset.value = /* @__PURE__ */ getDefault(this, dataset, config$1);
        if (dataset.value === void 0) {
          dataset.typed = true;
          return dataset;
        }
      }
      return this.wrapped["~run"](dataset, config$1);
    }
  });
}
__name(optional, "optional");
// @__NO_SIDE_EFFECTS__
function picklist(options, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "picklist",
    reference: picklist,
    expects: /* @__PURE__ */ _joinExpects(options.map(_stringify), "|"),
    async: false,
    options,
    message: message$1,
    "~run"(dataset, config$1) {
      if (this.options.includes(dataset.value)) dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(picklist, "picklist");
// @__NO_SIDE_EFFECTS__
function strictObject(entries$1, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "strict_object",
    reference: strictObject,
    expects: "Object",
    async: false,
    entries: entries$1,
    message: message$1,
    "~run"(dataset, config$1) {
      const input = dataset.value;
      if (input && typeof input === "object") {
        dataset.typed = true;
        dataset.value = {};
        for (const key in this.entries) {
          const valueSchema = this.entries[key];
          if (key in input || (valueSchema.type === "exact_optional" || valueSchema.type === "optional" || valueSchema.type === "nullish") && valueSchema.default !== void 0) {
            const value$1 = key in input ? input[key] : /* @__PURE__ */ getDefault(valueSchema);
            const valueDataset = valueSchema["~run"]({ value: value$1 }, config$1);
            if (valueDataset.issues) {
              const pathItem = {
                type: "object",
                origin: "value",
                input,
                key,
                value: value$1
              };
              for (const issue of valueDataset.issues) {
                if (issue.path) issue.path.unshift(pathItem);
                else issue.path = [pathItem];
                dataset.issues?.push(issue);
              }
              if (!dataset.issues) dataset.issues = valueDataset.issues;
              if (config$1.abortEarly) {
                dataset.typed = false;
                break;
              }
            }
            if (!valueDataset.typed) dataset.typed = false;
            dataset.value[key] = valueDataset.value;
          } else if (valueSchema.fallback !== void 0) dataset.value[key] = /* @__PURE__ */ getFallback(valueSchema);
          else if (valueSchema.type !== "exact_optional" && valueSchema.type !== "optional" && valueSchema.type !== "nullish") {
            _addIssue(this, "key", dataset, config$1, {
              input: void 0,
              expected: `"${key}"`,
              path: [{
                type: "object",
                origin: "key",
                input,
                key,
                value: input[key]
              }]
            });
            if (config$1.abortEarly) break;
          }
        }
        if (!dataset.issues || !config$1.abortEarly) {
          for (const key in input) if (!Object.prototype.hasOwnProperty.call(this.entries, key)) {
            _addIssue(this, "key", dataset, config$1, {
              input: key,
              expected: "never",
              path: [{
                type: "object",
                origin: "key",
                input,
                key,
                value: input[key]
              }]
            });
            break;
          }
        }
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(strictObject, "strictObject");
// @__NO_SIDE_EFFECTS__
function string(message$1) {
  return _standardSchema({
    kind: "schema",
    type: "string",
    reference: string,
    expects: "string",
    async: false,
    message: message$1,
    "~run"(dataset, config$1) {
      if (typeof dataset.value === "string") dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(string, "string");
// @__NO_SIDE_EFFECTS__
function _subIssues(datasets) {
  let issues;
  if (datasets) for (const dataset of datasets) if (issues) for (const issue of dataset.issues) issues.push(issue);
  else issues = dataset.issues;
  return issues;
}
__name(_subIssues, "_subIssues");
// @__NO_SIDE_EFFECTS__
function union(options, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "union",
    reference: union,
    expects: /* @__PURE__ */ _joinExpects(options.map((option) => option.expects), "|"),
    async: false,
    options,
    message: message$1,
    "~run"(dataset, config$1) {
      let validDataset;
      let typedDatasets;
      let untypedDatasets;
      for (const schema of this.options) {
        const optionDataset = schema["~run"]({ value: dataset.value }, config$1);
        if (optionDataset.typed) if (optionDataset.issues) if (typedDatasets) typedDatasets.push(optionDataset);
        else typedDatasets = [optionDataset];
        else {
          validDataset = optionDataset;
          break;
        }
        else if (untypedDatasets) untypedDatasets.push(optionDataset);
        else untypedDatasets = [optionDataset];
      }
      if (validDataset) return validDataset;
      if (typedDatasets) {
        if (typedDatasets.length === 1) return typedDatasets[0];
        _addIssue(this, "type", dataset, config$1, { issues: /* @__PURE__ */ _subIssues(typedDatasets) });
        dataset.typed = true;
      } else if (untypedDatasets?.length === 1) return untypedDatasets[0];
      else _addIssue(this, "type", dataset, config$1, { issues: /* @__PURE__ */ _subIssues(untypedDatasets) });
      return dataset;
    }
  });
}
__name(union, "union");
// @__NO_SIDE_EFFECTS__
function variant(key, options, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "variant",
    reference: variant,
    expects: "Object",
    async: false,
    key,
    options,
    message: message$1,
    "~run"(dataset, config$1) {
      const input = dataset.value;
      if (input && typeof input === "object") {
        let outputDataset;
        let maxDiscriminatorPriority = 0;
        let invalidDiscriminatorKey = this.key;
        let expectedDiscriminators = [];
        const parseOptions = /* @__PURE__ */ __name((variant$1, allKeys) => {
          for (const schema of variant$1.options) {
            if (schema.type === "variant") parseOptions(schema, new Set(allKeys).add(schema.key));
            else {
              let keysAreValid = true;
              let currentPriority = 0;
              for (const currentKey of allKeys) {
                const discriminatorSchema = schema.entries[currentKey];
                if (currentKey in input ? discriminatorSchema["~run"]({
                  typed: false,
                  value: input[currentKey]
                }, ABORT_EARLY_CONFIG).issues : discriminatorSchema.type !== "exact_optional" && discriminatorSchema.type !== "optional" && discriminatorSchema.type !== "nullish") {
                  keysAreValid = false;
                  if (invalidDiscriminatorKey !== currentKey && (maxDiscriminatorPriority < currentPriority || maxDiscriminatorPriority === currentPriority && currentKey in input && !(invalidDiscriminatorKey in input))) {
                    maxDiscriminatorPriority = currentPriority;
                    invalidDiscriminatorKey = currentKey;
                    expectedDiscriminators = [];
                  }
                  if (invalidDiscriminatorKey === currentKey) expectedDiscriminators.push(schema.entries[currentKey].expects);
                  break;
                }
                currentPriority++;
              }
              if (keysAreValid) {
                const optionDataset = schema["~run"]({ value: input }, config$1);
                if (!outputDataset || !outputDataset.typed && optionDataset.typed) outputDataset = optionDataset;
              }
            }
            if (outputDataset && !outputDataset.issues) break;
          }
        }, "parseOptions");
        parseOptions(this, /* @__PURE__ */ new Set([this.key]));
        if (outputDataset) return outputDataset;
        _addIssue(this, "type", dataset, config$1, {
          input: input[invalidDiscriminatorKey],
          expected: /* @__PURE__ */ _joinExpects(expectedDiscriminators, "|"),
          path: [{
            type: "object",
            origin: "value",
            input,
            key: invalidDiscriminatorKey,
            value: input[invalidDiscriminatorKey]
          }]
        });
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(variant, "variant");
// @__NO_SIDE_EFFECTS__
function omit(schema, keys) {
  const entries$1 = { ...schema.entries };
  for (const key of keys) delete entries$1[key];
  return _standardSchema({
    ...schema,
    entries: entries$1
  });
}
__name(omit, "omit");
// @__NO_SIDE_EFFECTS__
function pipe(...pipe$1) {
  return _standardSchema({
    ...pipe$1[0],
    pipe: pipe$1,
    "~run"(dataset, config$1) {
      for (const item of pipe$1) if (item.kind !== "metadata") {
        if (dataset.issues && (item.kind === "schema" || item.kind === "transformation")) {
          dataset.typed = false;
          break;
        }
        if (!dataset.issues || !config$1.abortEarly && !config$1.abortPipeEarly) dataset = item["~run"](dataset, config$1);
      }
      return dataset;
    }
  });
}
__name(pipe, "pipe");
// @__NO_SIDE_EFFECTS__
function safeParse(schema, input, config$1) {
  const dataset = schema["~run"]({ value: input }, /* @__PURE__ */ getGlobalConfig(config$1));
  return {
    typed: dataset.typed,
    success: !dataset.issues,
    output: dataset.value,
    issues: dataset.issues
  };
}
__name(safeParse, "safeParse");

// src/config/risk-limits.ts
var HOUR_MS = 36e5;
var DAY_MS = 864e5;
var RISK_KEYS = {
  /** A user's uses of card numbers as the payer's, by the card's fingerprint. */
  payer_uses: { subject: "user", entries: "call" },
  /** A user's OTP sends, by the card's (number's or token's) fingerprint. */
  otp_sends: { subject: "user", entries: "call" },
  /** A user's receiver cards (a2c/create's receiver_card), by fingerprint: a2c/create asks the user's object alone. */
  receiver_cards: { subject: "user", entries: "ref" },
  /** A card's users as the payer, by a keyed hash of the user (src/risk/fingerprint.ts userKey). */
  card_users: { subject: "card", entries: "call" }
};
var RISK_RULES = {
  /** Uses of one card number as the payer's by one user (anonymous/authorize, anonymous/pay). */
  user_card_uses_per_hour: { key: "payer_uses", counts: "ref", windowMs: HOUR_MS, fallback: 5 },
  user_card_uses_per_day: { key: "payer_uses", counts: "ref", windowMs: DAY_MS, fallback: 10 },
  /** Distinct users of one card number as the payer's; a user already among them is never refused. */
  card_users_per_day: { key: "card_users", counts: "distinct", windowMs: DAY_MS, fallback: 3, others: true },
  /** Distinct card numbers one user pays with. */
  user_payer_cards_per_day: { key: "payer_uses", counts: "distinct", windowMs: DAY_MS, fallback: 5 },
  /** Distinct receiver cards of one user's transfers (a2c/create); they count toward no other limit. */
  user_receiver_cards_per_day: { key: "receiver_cards", counts: "distinct", windowMs: DAY_MS, fallback: 20 },
  /** OTP sends (authorize, by token or number) one user asks for. */
  user_otp_sends_per_day: { key: "otp_sends", counts: "all", windowMs: DAY_MS, fallback: 20 },
  /** OTP sends one user asks for to one card, by its number's or its token's fingerprint. */
  user_card_otp_sends_per_day: { key: "otp_sends", counts: "ref", windowMs: DAY_MS, fallback: 5 }
};
var RISK_RULE_NAMES = Object.keys(RISK_RULES);
var KEEP_MS = Object.fromEntries(
  Object.keys(RISK_KEYS).map((key) => [
    key,
    Math.max(...Object.values(RISK_RULES).flatMap((rule) => rule.key === key ? [rule.windowMs] : []))
  ])
);
var RETIRED = {
  card_uses_per_hour: "user_card_uses_per_hour and user_card_uses_per_day (a card's uses are counted per user) and card_users_per_day",
  card_otp_sends_per_day: "user_card_otp_sends_per_day (a card's OTP sends are counted per user)",
  user_cards_per_day: "user_payer_cards_per_day and user_receiver_cards_per_day"
};
var Limit = union(
  [pipe(number(), integer(), minValue(1), maxValue(Number.MAX_SAFE_INTEGER)), literal("off")],
  'each limit must be a positive integer or "off"'
);
var RiskLimitsSetting = strictObject(
  Object.fromEntries(RISK_RULE_NAMES.map((rule) => [rule, optional(Limit)])),
  `RISK_LIMITS must be a JSON object of the limits ${RISK_RULE_NAMES.join(", ")}, and no other key`
);
var DEFAULT_RISK_LIMITS = Object.fromEntries(
  Object.entries(RISK_RULES).map(([rule, { fallback }]) => [rule, fallback])
);
function parseRiskLimits(value) {
  const text2 = typeof value === "string" ? value.trim() : "";
  if (!text2) return { limits: DEFAULT_RISK_LIMITS, problem: null };
  let json;
  try {
    json = JSON.parse(text2);
  } catch {
    return { limits: DEFAULT_RISK_LIMITS, problem: `RISK_LIMITS is not JSON (rule 13's limits, e.g. {"user_card_uses_per_hour": 5}).` };
  }
  const retired = json !== null && typeof json === "object" ? Object.keys(json).filter((name) => Object.hasOwn(RETIRED, name)) : [];
  if (retired.length > 0) {
    const name = retired[0];
    return { limits: DEFAULT_RISK_LIMITS, problem: `RISK_LIMITS names ${name}, a limit no longer counted: set ${RETIRED[name]} instead.` };
  }
  const parsed = safeParse(RiskLimitsSetting, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const at = getDotPath(issue);
    return { limits: DEFAULT_RISK_LIMITS, problem: `RISK_LIMITS is not valid: ${at ? `${at}: ` : ""}${issue.message}.` };
  }
  const limits = { ...DEFAULT_RISK_LIMITS };
  for (const [rule, limit] of Object.entries(parsed.output)) {
    if (limit !== void 0) limits[rule] = limit === "off" ? null : limit;
  }
  return { limits, problem: null };
}
__name(parseRiskLimits, "parseRiskLimits");
var cache2 = /* @__PURE__ */ new WeakMap();
function riskLimits(env) {
  let limits = cache2.get(env);
  if (!limits) {
    limits = parseRiskLimits(env.RISK_LIMITS).limits;
    cache2.set(env, limits);
  }
  return limits;
}
__name(riskLimits, "riskLimits");
function riskProblems(env) {
  const problems = [];
  const { problem } = parseRiskLimits(env.RISK_LIMITS);
  if (problem) problems.push(problem);
  if (typeof env.RISK?.idFromName !== "function") {
    problems.push(
      "The Durable Object binding RISK (RiskObject) is missing (see [[durable_objects.bindings]] in wrangler.toml): rule 13 cannot count."
    );
  }
  return problems;
}
__name(riskProblems, "riskProblems");

// src/config/staff-roles.ts
var ROLES = ["support", "finance", "operator"];
var OPERATIONS = [
  "me",
  "find",
  "record",
  "reveal",
  "statements",
  "statement",
  "statement_file",
  "fiscal_pending",
  "resend",
  "resend_failed",
  "erasures",
  "charts"
];
var CAN = {
  support: ["me", "find", "record", "reveal"],
  finance: ["me", "find", "record", "statements", "statement", "statement_file", "fiscal_pending"],
  operator: OPERATIONS
};
var may = /* @__PURE__ */ __name((role, operation2) => CAN[role].includes(operation2), "may");
var stronger = /* @__PURE__ */ __name((a, b) => a && ROLES.indexOf(a) > ROLES.indexOf(b) ? a : b, "stronger");
var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
var DOMAIN = /^@[^\s@]+\.[^\s@]+$/;
function parseStaffRoles(text2) {
  const value = (text2 ?? "").trim();
  if (value === "") return { roles: { emails: /* @__PURE__ */ new Map(), domains: /* @__PURE__ */ new Map() } };
  let parsed;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { problem: 'STAFF_ROLES is not JSON: set it to {"support": [...], "finance": [...], "operator": [...]} of emails or @domains.' };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { problem: "STAFF_ROLES is not a JSON object of roles (support, finance, operator)." };
  }
  const emails = /* @__PURE__ */ new Map();
  const domains = /* @__PURE__ */ new Map();
  for (const [role, entries] of Object.entries(parsed)) {
    if (!ROLES.includes(role))
      return { problem: `STAFF_ROLES names a role the console does not know; the roles are ${ROLES.join(", ")}.` };
    if (!Array.isArray(entries)) return { problem: `STAFF_ROLES's ${role} is not a list of emails or @domains.` };
    for (const [i, entry] of entries.entries()) {
      const name = typeof entry === "string" ? entry.trim().toLowerCase() : "";
      if (DOMAIN.test(name)) domains.set(name.slice(1), stronger(domains.get(name.slice(1)), role));
      else if (EMAIL.test(name)) emails.set(name, stronger(emails.get(name), role));
      else return { problem: `STAFF_ROLES's ${role} entry ${i + 1} is neither an email nor an @domain.` };
    }
  }
  return { roles: { emails, domains } };
}
__name(parseStaffRoles, "parseStaffRoles");
function roleOf(roles, email2) {
  const address = email2.trim().toLowerCase();
  const named = roles.emails.get(address);
  if (named) return named;
  const domain = address.slice(address.lastIndexOf("@") + 1);
  return address.includes("@") && roles.domains.get(domain) || null;
}
__name(roleOf, "roleOf");
function staffRoleProblems(env) {
  const parsed = parseStaffRoles(env.STAFF_ROLES);
  return "problem" in parsed ? [parsed.problem] : [];
}
__name(staffRoleProblems, "staffRoleProblems");

// src/d1/shards.ts
var isD1 = /* @__PURE__ */ __name((value) => typeof value?.prepare === "function" && typeof value?.batch === "function", "isD1");
function shardProblems(env) {
  const problems = [];
  const lists = [
    ["TID_INDEX_SHARDS", tidShardList(env.TID_INDEX_SHARDS)],
    ...previousTidShardLayouts(env.TID_INDEX_SHARDS_PREVIOUS).map((list) => ["TID_INDEX_SHARDS_PREVIOUS", list])
  ];
  for (const [setting, names] of lists) {
    problems.push(...tidShardListProblems(names, setting));
    for (const name of new Set(names)) {
      if (!isD1(env[name])) {
        problems.push(`${setting} names ${name}, which is not a D1 database binding of this deployment (see [[d1_databases]] in wrangler.toml).`);
      }
    }
  }
  return problems;
}
__name(shardProblems, "shardProblems");
var cache3 = /* @__PURE__ */ new WeakMap();
function layout(env) {
  let found = cache3.get(env);
  if (!found) {
    const problems = shardProblems(env);
    if (problems.length > 0) throw new Error(problems.join(" "));
    const resolve = /* @__PURE__ */ __name((names) => names.map((binding) => ({ binding, db: env[binding] })), "resolve");
    const current = resolve(tidShardList(env.TID_INDEX_SHARDS));
    const previous2 = previousTidShardLayouts(env.TID_INDEX_SHARDS_PREVIOUS).map(resolve).sort((a, b) => b.length - a.length);
    const all = [...current];
    for (const shard of previous2.flat()) if (!all.some((known) => known.binding === shard.binding)) all.push(shard);
    found = { current, previous: previous2, all };
    cache3.set(env, found);
  }
  return found;
}
__name(layout, "layout");
var tidShards = /* @__PURE__ */ __name((env) => layout(env).current, "tidShards");
var allShards = /* @__PURE__ */ __name((env) => layout(env).all, "allShards");
async function shardIndex(count, key) {
  if (count <= 1) return 0;
  const digest = new DataView(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  return jumpHash(digest.getBigUint64(0), count);
}
__name(shardIndex, "shardIndex");
var tidShardIndex = /* @__PURE__ */ __name((count, owner, tid) => shardIndex(count, `${owner}\0${tid}`), "tidShardIndex");
var eventShardIndex = /* @__PURE__ */ __name((count, recordId) => shardIndex(count, `record\0${recordId}`), "eventShardIndex");
async function eventShardFor(env, recordId) {
  const shards = tidShards(env);
  return shards[await eventShardIndex(shards.length, recordId)];
}
__name(eventShardFor, "eventShardFor");
async function eventShardsFor(env, recordId) {
  const { previous: previous2 } = layout(env);
  const places = [await eventShardFor(env, recordId)];
  for (const list of previous2) places.push(list[await eventShardIndex(list.length, recordId)]);
  return distinct(places);
}
__name(eventShardsFor, "eventShardsFor");
var distinct = /* @__PURE__ */ __name((places) => places.filter((place, i) => places.findIndex((p) => p.binding === place.binding) === i), "distinct");
async function tidShardFor(env, owner, tid) {
  const shards = tidShards(env);
  return shards[await tidShardIndex(shards.length, owner, tid)];
}
__name(tidShardFor, "tidShardFor");
async function tidShardsFor(env, owner, tid) {
  const { previous: previous2 } = layout(env);
  const places = [await tidShardFor(env, owner, tid)];
  for (const list of previous2) places.push(list[await tidShardIndex(list.length, owner, tid)]);
  return distinct(places);
}
__name(tidShardsFor, "tidShardsFor");
var MASK_64 = (1n << 64n) - 1n;
function jumpHash(key, buckets) {
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    key = key * 2862933555777941757n + 1n & MASK_64;
    j = Math.floor((b + 1) * (2 ** 31 / (Number(key >> 33n) + 1)));
  }
  return b;
}
__name(jumpHash, "jumpHash");

// src/http/rate-limit.ts
var LIMITERS = {
  authorize: { perUser: "LIMIT_AUTHORIZE_PER_USER", perAddress: "LIMIT_AUTHORIZE_PER_IP" },
  pay: { perUser: "LIMIT_PAY_PER_USER", perAddress: "LIMIT_PAY_PER_IP" }
};
var RATE_LIMIT_PERIOD_SECONDS = 60;
var RATE_LIMIT_BINDINGS = Object.values(LIMITERS).flatMap(({ perUser, perAddress }) => [perUser, perAddress]);
function rateLimitProblems(env) {
  const bindings = env;
  return RATE_LIMIT_BINDINGS.filter((binding) => typeof bindings[binding]?.limit !== "function").map(
    (binding) => `The rate limiting binding ${binding} is missing (see [[ratelimits]] in wrangler.toml).`
  );
}
__name(rateLimitProblems, "rateLimitProblems");
var rateLimit = /* @__PURE__ */ __name((operation2) => createMiddleware(async (c, next) => {
  const caller = c.var.caller;
  if (caller.kind === "partner") return next();
  const { perUser, perAddress } = LIMITERS[operation2];
  const address = c.req.header("cf-connecting-ip");
  let outcomes;
  try {
    outcomes = await Promise.all([
      c.env[perUser].limit({ key: `user:${caller.id}` }),
      ...address ? [c.env[perAddress].limit({ key: `ip:${address}` })] : []
    ]);
  } catch (err) {
    log("error", "rate_limit_unavailable", { request_id: c.var.requestId, operation: operation2, error: String(err) });
    return next();
  }
  if (outcomes.some((outcome) => !outcome.success)) {
    throw new ApiError("rate_limited", `Too many ${operation2} calls; wait before trying again.`, {
      retry_after: RATE_LIMIT_PERIOD_SECONDS
    });
  }
  await next();
}), "rateLimit");

// src/http/guard.ts
function eventQueueProblems(env) {
  if (typeof env.EVENTS?.send === "function") return [];
  return ["The queue binding EVENTS is missing (see [[queues.producers]] in wrangler.toml): events cannot be published."];
}
__name(eventQueueProblems, "eventQueueProblems");
function auditProblems(env) {
  const problems = auditSettingProblems(env, false);
  const bound = env;
  for (const name of ["AUDIT", "STATEMENTS"])
    if (typeof bound[name]?.put !== "function") problems.push(`The R2 binding ${name} is missing (see [[r2_buckets]] in wrangler.toml).`);
  for (const name of ["AUDIT_WRITER", "STATEMENT"])
    if (typeof bound[name]?.idFromName !== "function")
      problems.push(`The Durable Object binding ${name} is missing (see [[durable_objects.bindings]] in wrangler.toml).`);
  return problems;
}
__name(auditProblems, "auditProblems");
var CHECKS = [
  credentialProblems,
  rateLimitProblems,
  riskProblems,
  eventQueueProblems,
  webhookSecretProblems,
  expiryProblems,
  fiscalReadProblems,
  auditProblems,
  cancelledByProblems,
  logSampleProblems,
  staffRoleProblems,
  shardProblems,
  productionProblems
];
var cache4 = /* @__PURE__ */ new WeakMap();
function configProblems(env) {
  let problems = cache4.get(env);
  if (!problems) {
    problems = CHECKS.flatMap((check2) => check2(env));
    cache4.set(env, problems);
  }
  return problems;
}
__name(configProblems, "configProblems");
var reported = /* @__PURE__ */ new WeakSet();
var requireSoundConfig = createMiddleware(async (c, next) => {
  const problems = configProblems(c.env);
  if (problems.length > 0) {
    if (!reported.has(c.env)) {
      reported.add(c.env);
      log("error", "service_misconfigured", { problems: problems.join(" ") });
    }
    throw new ApiError("service_misconfigured", `This deployment is misconfigured: ${problems.join(" ")}`);
  }
  await next();
});

// src/metrics/metrics.ts
var SUCCESS_SAMPLE = 10;
var SLOW_SUCCESS = { upstreamMs: 1e3, queuedMs: 6e4 };
var isFrequentSuccess = /* @__PURE__ */ __name((name, f) => name === "upstream_call" && f.outcome === "ok" && (f.ms ?? 0) < SLOW_SUCCESS.upstreamMs || name === "event_delivery" && f.outcome === "delivered" && (f.queued_ms ?? 0) < SLOW_SUCCESS.queuedMs, "isFrequentSuccess");
var successSampling = { keep: /* @__PURE__ */ __name(() => Math.random() * SUCCESS_SAMPLE < 1, "keep") };
var readers = /* @__PURE__ */ new Set();
function observeMetrics(read) {
  readers.add(read);
  return () => readers.delete(read);
}
__name(observeMetrics, "observeMetrics");
function metricPoint(name, fields) {
  const f = fields;
  return {
    indexes: [name],
    blobs: [name, f.operation ?? "", f.outcome ?? ""],
    doubles: [f.count ?? 1, Math.max(0, Math.round(f.ms ?? 0)), f.attempts ?? Math.max(0, Math.round(f.queued_ms ?? 0))]
  };
}
__name(metricPoint, "metricPoint");
function metric(env, name, fields) {
  try {
    let point = metricPoint(name, fields);
    if (isFrequentSuccess(name, fields)) {
      if (!successSampling.keep()) return;
      point = metricPoint(name, { ...fields, count: SUCCESS_SAMPLE });
    }
    env.METRICS?.writeDataPoint(point);
    for (const read of readers) read(point);
  } catch (err) {
    log("warn", "metric_write_failed", { metric: name, error: err instanceof Error ? err.message : String(err) });
  }
}
__name(metric, "metric");

// src/shared/clock.ts
import { AsyncLocalStorage as AsyncLocalStorage2 } from "node:async_hooks";
var offsetMs = 0;
var frozenAt = null;
var wall = /* @__PURE__ */ __name(() => frozenAt ?? Date.now(), "wall");
var recordTime = new AsyncLocalStorage2();
var clock = {
  /** The time of the record whose call this is (its offset added), else the deployment's. */
  now: /* @__PURE__ */ __name(() => wall() + offsetMs + (recordTime.getStore() ?? 0), "now"),
  /** The deployment's time, whichever record's call reads it. */
  shared: /* @__PURE__ */ __name(() => wall() + offsetMs, "shared"),
  /** How far the record whose call this is runs ahead of the deployment (0 outside a record's call). */
  recordOffset: /* @__PURE__ */ __name(() => recordTime.getStore() ?? 0, "recordOffset")
};
function inRecordTime(offset, work) {
  return recordTime.run(offset, work);
}
__name(inRecordTime, "inRecordTime");

// src/config/retention-policy.ts
var DAY_MS2 = 864e5;
var RETENTION_DEFAULTS = {
  replayDays: 7,
  tidRetentionDays: 90,
  // 7, not 30: a delivered event is at the partner already, and its record keeps its body and audit trail for
  // RECORD_RETENTION_DAYS; undelivered ones stay 90 days. It keeps D1 at <= 1 KB a receipt (docs/capacity.md).
  deliveredEventsDays: 7,
  undeliveredEventsDays: 90,
  // Rule 10's default. A record whose events are undelivered waits for the log to prune them (src/record/end.ts).
  recordRetentionDays: 30,
  batchSize: 1e3,
  rounds: 5
};
function positive(value, fallback) {
  const n = Number(value);
  return value !== void 0 && value.trim() !== "" && Number.isFinite(n) && n > 0 ? n : fallback;
}
__name(positive, "positive");
var whole = /* @__PURE__ */ __name((value, fallback) => Math.max(1, Math.floor(positive(value, fallback))), "whole");
function retentionPolicy(env) {
  const d = RETENTION_DEFAULTS;
  const replayMs = positive(env.TID_REPLAY_DAYS, d.replayDays) * DAY_MS2;
  const deliveredEventsMs = positive(env.EVENTS_DELIVERED_RETENTION_DAYS, d.deliveredEventsDays) * DAY_MS2;
  const undeliveredEventsMs = Math.max(deliveredEventsMs, positive(env.EVENTS_UNDELIVERED_RETENTION_DAYS, d.undeliveredEventsDays) * DAY_MS2);
  return {
    replayMs,
    // Deleting a row before its answer expired would cut the replay window short.
    tidRetentionMs: Math.max(replayMs, positive(env.TID_RETENTION_DAYS, d.tidRetentionDays) * DAY_MS2),
    deliveredEventsMs,
    undeliveredEventsMs,
    recordRetentionMs: positive(env.RECORD_RETENTION_DAYS, d.recordRetentionDays) * DAY_MS2,
    batchSize: whole(env.RETENTION_BATCH_SIZE, d.batchSize),
    rounds: whole(env.RETENTION_ROUNDS, d.rounds)
  };
}
__name(retentionPolicy, "retentionPolicy");

// src/record-stub.ts
function receiptStub(env, kind, id) {
  return env.RECEIPTS.get(env.RECEIPTS.idFromName(`${kind}:${id}`));
}
__name(receiptStub, "receiptStub");

// ../../../work/main/node_modules/ulid/dist/browser/index.js
var ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
var ENCODING_LEN = 32;
var RANDOM_LEN = 16;
var TIME_LEN = 10;
var TIME_MAX = 281474976710655;
var ULIDErrorCode;
(function(ULIDErrorCode2) {
  ULIDErrorCode2["Base32IncorrectEncoding"] = "B32_ENC_INVALID";
  ULIDErrorCode2["DecodeTimeInvalidCharacter"] = "DEC_TIME_CHAR";
  ULIDErrorCode2["DecodeTimeValueMalformed"] = "DEC_TIME_MALFORMED";
  ULIDErrorCode2["EncodeTimeNegative"] = "ENC_TIME_NEG";
  ULIDErrorCode2["EncodeTimeSizeExceeded"] = "ENC_TIME_SIZE_EXCEED";
  ULIDErrorCode2["EncodeTimeValueMalformed"] = "ENC_TIME_MALFORMED";
  ULIDErrorCode2["PRNGDetectFailure"] = "PRNG_DETECT";
  ULIDErrorCode2["ULIDInvalid"] = "ULID_INVALID";
  ULIDErrorCode2["Unexpected"] = "UNEXPECTED";
  ULIDErrorCode2["UUIDInvalid"] = "UUID_INVALID";
})(ULIDErrorCode || (ULIDErrorCode = {}));
var ULIDError = class extends Error {
  static {
    __name(this, "ULIDError");
  }
  constructor(errorCode, message2) {
    super(`${message2} (${errorCode})`);
    this.name = "ULIDError";
    this.code = errorCode;
  }
};
function randomChar(prng) {
  const randomPosition = Math.floor(prng() * ENCODING_LEN) % ENCODING_LEN;
  return ENCODING.charAt(randomPosition);
}
__name(randomChar, "randomChar");
function replaceCharAt(str2, index, char) {
  if (index > str2.length - 1) {
    return str2;
  }
  return str2.substr(0, index) + char + str2.substr(index + 1);
}
__name(replaceCharAt, "replaceCharAt");
function incrementBase32(str2) {
  let done = void 0, index = str2.length, char, charIndex, output = str2;
  const maxCharIndex = ENCODING_LEN - 1;
  while (!done && index-- >= 0) {
    char = output[index];
    charIndex = ENCODING.indexOf(char);
    if (charIndex === -1) {
      throw new ULIDError(ULIDErrorCode.Base32IncorrectEncoding, "Incorrectly encoded string");
    }
    if (charIndex === maxCharIndex) {
      output = replaceCharAt(output, index, ENCODING[0]);
      continue;
    }
    done = replaceCharAt(output, index, ENCODING[charIndex + 1]);
  }
  if (typeof done === "string") {
    return done;
  }
  throw new ULIDError(ULIDErrorCode.Base32IncorrectEncoding, "Failed incrementing string");
}
__name(incrementBase32, "incrementBase32");
function detectPRNG(root) {
  const rootLookup = detectRoot();
  const globalCrypto = rootLookup && (rootLookup.crypto || rootLookup.msCrypto) || null;
  if (typeof globalCrypto?.getRandomValues === "function") {
    return () => {
      const buffer = new Uint8Array(1);
      globalCrypto.getRandomValues(buffer);
      return buffer[0] / 256;
    };
  } else if (typeof globalCrypto?.randomBytes === "function") {
    return () => globalCrypto.randomBytes(1).readUInt8() / 256;
  } else ;
  throw new ULIDError(ULIDErrorCode.PRNGDetectFailure, "Failed to find a reliable PRNG");
}
__name(detectPRNG, "detectPRNG");
function detectRoot() {
  if (inWebWorker())
    return self;
  if (typeof window !== "undefined") {
    return window;
  }
  if (typeof global !== "undefined") {
    return global;
  }
  if (typeof globalThis !== "undefined") {
    return globalThis;
  }
  return null;
}
__name(detectRoot, "detectRoot");
function encodeRandom(len, prng) {
  let str2 = "";
  for (; len > 0; len--) {
    str2 = randomChar(prng) + str2;
  }
  return str2;
}
__name(encodeRandom, "encodeRandom");
function encodeTime(now, len = TIME_LEN) {
  if (isNaN(now)) {
    throw new ULIDError(ULIDErrorCode.EncodeTimeValueMalformed, `Time must be a number: ${now}`);
  } else if (now > TIME_MAX) {
    throw new ULIDError(ULIDErrorCode.EncodeTimeSizeExceeded, `Cannot encode a time larger than ${TIME_MAX}: ${now}`);
  } else if (now < 0) {
    throw new ULIDError(ULIDErrorCode.EncodeTimeNegative, `Time must be positive: ${now}`);
  } else if (Number.isInteger(now) === false) {
    throw new ULIDError(ULIDErrorCode.EncodeTimeValueMalformed, `Time must be an integer: ${now}`);
  }
  let mod, str2 = "";
  for (let currentLen = len; currentLen > 0; currentLen--) {
    mod = now % ENCODING_LEN;
    str2 = ENCODING.charAt(mod) + str2;
    now = (now - mod) / ENCODING_LEN;
  }
  return str2;
}
__name(encodeTime, "encodeTime");
function inWebWorker() {
  return typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope;
}
__name(inWebWorker, "inWebWorker");
function monotonicFactory(prng) {
  const currentPRNG = prng || detectPRNG();
  let lastTime = 0, lastRandom;
  return /* @__PURE__ */ __name(function _ulid(seedTime) {
    const seed = !seedTime || isNaN(seedTime) ? Date.now() : seedTime;
    if (seed <= lastTime) {
      const incrementedRandom = lastRandom = incrementBase32(lastRandom);
      return encodeTime(lastTime, TIME_LEN) + incrementedRandom;
    }
    lastTime = seed;
    const newRandom = lastRandom = encodeRandom(RANDOM_LEN, currentPRNG);
    return encodeTime(seed, TIME_LEN) + newRandom;
  }, "_ulid");
}
__name(monotonicFactory, "monotonicFactory");
function ulid(seedTime, prng) {
  const currentPRNG = prng || detectPRNG();
  const seed = !seedTime || isNaN(seedTime) ? Date.now() : seedTime;
  return encodeTime(seed, TIME_LEN) + encodeRandom(RANDOM_LEN, currentPRNG);
}
__name(ulid, "ulid");

// src/d1/ring.ts
var RING_SLOTS = 8;
var slotPeriodMs = /* @__PURE__ */ __name((windowMs2) => Math.max(1, Math.ceil(windowMs2 / (RING_SLOTS - 2))), "slotPeriodMs");
var slotAt = /* @__PURE__ */ __name((at, periodMs) => Math.floor(at / periodMs) % RING_SLOTS, "slotAt");
var slotToEmpty = /* @__PURE__ */ __name((now, periodMs) => (slotAt(now, periodMs) + 1) % RING_SLOTS, "slotToEmpty");
var slotNames = /* @__PURE__ */ __name((name) => Array.from({ length: RING_SLOTS }, (_, slot) => `${name}_${slot}`), "slotNames");
var D1_COMPOUND_TERMS = 5;
function unionAll(selects, tail = "") {
  if (selects.length <= D1_COMPOUND_TERMS) return `${selects.join("\n   UNION ALL ")}${tail ? ` ${tail}` : ""}`;
  const groups = [];
  for (let i = 0; i < selects.length; i += D1_COMPOUND_TERMS)
    groups.push(`SELECT * FROM (${unionAll(selects.slice(i, i + D1_COMPOUND_TERMS), tail)})`);
  return unionAll(groups, tail);
}
__name(unionAll, "unionAll");
var changedRows = /* @__PURE__ */ __name((results) => results.reduce((n, result) => n + (result.meta.changes ?? 0), 0), "changedRows");

// src/upstream/calls.ts
var STATE = { created: 0, paid: 4, held: 5, cancelled: 21, awaitingSupplier: 57 };
var KNOWN_STATES = new Set(Object.values(STATE));
var isKnownState = /* @__PURE__ */ __name((state) => typeof state === "number" && KNOWN_STATES.has(state), "isKnownState");

// src/rules/kinds.ts
var RECEIPT = {
  name: "receipt",
  noun: "receipt",
  idField: "id",
  readWith: "check-id or check-tid",
  authorizes: true,
  holds: true,
  cancellable: true,
  events: {
    created: "receipt.created",
    exhausted: "receipt.otp_attempts_exhausted",
    // A receipt the upstream would not cancel is still cancelled for the partner, with data.closed_at_edge.
    expiredAtEdge: "receipt.cancelled",
    onState: {
      [STATE.paid]: "receipt.paid",
      [STATE.held]: "receipt.held",
      [STATE.awaitingSupplier]: "receipt.awaiting_supplier",
      [STATE.cancelled]: "receipt.cancelled"
    },
    fiscal: { sale: "receipt.fiscalized", refund: "receipt.refund_fiscalized" }
  },
  idOf: /* @__PURE__ */ __name((body) => body.id, "idOf"),
  stateOf: /* @__PURE__ */ __name((body) => body.state, "stateOf"),
  withTid: /* @__PURE__ */ __name((body, tid) => body.tid === tid ? body : { ...body, tid }, "withTid"),
  create: /* @__PURE__ */ __name((upstream, input) => upstream.createReceipt(input), "create"),
  read: /* @__PURE__ */ __name((upstream, id) => upstream.checkId(id), "read"),
  matches: /* @__PURE__ */ __name((existing, input) => existing.amount === input.amount && existing.merchant.merchant_id === input.merchant_id, "matches"),
  bodyOf: /* @__PURE__ */ __name((failure) => failure.receipt, "bodyOf"),
  holdOf: /* @__PURE__ */ __name((input) => input.is_hold, "holdOf"),
  merchantOf: /* @__PURE__ */ __name((input) => input.merchant_id, "merchantOf"),
  createdAtOf: /* @__PURE__ */ __name((body) => body.create_date, "createdAtOf"),
  amountOf: /* @__PURE__ */ __name((body) => body.amount, "amountOf"),
  merchantOfBody: /* @__PURE__ */ __name((body) => body.merchant.merchant_id, "merchantOfBody")
};
var TRANSFER = {
  name: "transfer",
  noun: "transfer",
  idField: "receipt_id",
  readWith: "a2c/get-by-id",
  authorizes: false,
  holds: false,
  cancellable: false,
  events: {
    created: "transfer.created",
    exhausted: "transfer.otp_attempts_exhausted",
    expiredAtEdge: "transfer.expired",
    onState: { [STATE.paid]: "transfer.paid", [STATE.cancelled]: "transfer.cancelled" }
  },
  idOf: /* @__PURE__ */ __name((body) => body.receipt_id, "idOf"),
  stateOf: /* @__PURE__ */ __name((body) => body.state, "stateOf"),
  withTid: /* @__PURE__ */ __name((body, tid) => body.tid === tid ? body : { ...body, tid }, "withTid"),
  create: /* @__PURE__ */ __name((upstream, input) => upstream.createTransfer(input), "create"),
  read: /* @__PURE__ */ __name((upstream, id) => upstream.getTransfer(id), "read"),
  matches: /* @__PURE__ */ __name((existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === maskPan(input.receiver_card), "matches"),
  bodyOf: /* @__PURE__ */ __name((failure) => failure.transfer, "bodyOf"),
  holdOf: /* @__PURE__ */ __name(() => false, "holdOf"),
  merchantOf: /* @__PURE__ */ __name(() => void 0, "merchantOf"),
  createdAtOf: /* @__PURE__ */ __name((body) => body.created_date, "createdAtOf"),
  amountOf: /* @__PURE__ */ __name((body) => body.receiver.amount, "amountOf"),
  merchantOfBody: /* @__PURE__ */ __name(() => void 0, "merchantOfBody")
};
var KINDS = { receipt: RECEIPT, transfer: TRANSFER };
var KIND_NAMES = Object.keys(KINDS);
function kindNamed(name) {
  return KINDS[name];
}
__name(kindNamed, "kindNamed");

// src/events/statement-lines.ts
var STATEMENT_CHANGES = { paid: 1, held: 2, cancelled: 3, refunded: 4, expired: 5, closed_at_edge: 6 };
var CHANGE_OF_CODE = new Map(Object.entries(STATEMENT_CHANGES).map(([name, code]) => [code, name]));
var LINE_EVENT_TYPES = [
  "receipt.paid",
  "receipt.held",
  "receipt.cancelled",
  "transfer.paid",
  "transfer.cancelled",
  "transfer.expired",
  "transfer.otp_attempts_exhausted"
];
function statementChange(event) {
  switch (event.type) {
    case "receipt.paid":
    case "transfer.paid":
      return "paid";
    case "receipt.held":
      return "held";
    case "transfer.expired":
      return "expired";
    case "transfer.otp_attempts_exhausted":
      return "closed_at_edge";
    case "transfer.cancelled":
      return "cancelled";
    case "receipt.cancelled": {
      if (event.data.closed_at_edge) return "closed_at_edge";
      if (event.data.reason === "expired" || event.data.reason === "hold_expired") return "expired";
      if (event.data.previous_state === 4 || event.data.previous_state === 57) return "refunded";
      return "cancelled";
    }
    default:
      return null;
  }
}
__name(statementChange, "statementChange");
var num = /* @__PURE__ */ __name((value) => typeof value === "number" && Number.isFinite(value) ? value : null, "num");
function commissionOf(kind, object2) {
  return num(object2.commission ?? (kind === "transfer" ? object2.sender?.commission : void 0));
}
__name(commissionOf, "commissionOf");
function lineFields(event) {
  const change = statementChange(event);
  if (!change) return null;
  const object2 = event.data.object;
  const kind = event.type.startsWith("transfer.") ? KINDS.transfer : KINDS.receipt;
  const isTransfer = kind.name === "transfer";
  return {
    change,
    amount: num(isTransfer ? object2.receiver?.amount : object2.amount),
    commission: commissionOf(kind.name, object2),
    merchant: isTransfer ? null : num(object2.merchant?.merchant_id),
    tid: typeof object2.tid === "string" ? object2.tid : null,
    owner: event.data.owner,
    state: num(object2.state),
    fiscal_sign: typeof object2.ofd?.fiscalSign === "string" && object2.ofd.fiscalSign.trim() !== "" ? object2.ofd.fiscalSign : null
  };
}
__name(lineFields, "lineFields");

// src/events/types.ts
var EVENT_TYPES = {
  "receipt.created": "A receipt was created (state 0).",
  "receipt.paid": "A receipt is paid (state 4): by pay, by hold-confirm, or when the supplier confirmed a payment that awaited it.",
  "receipt.held": "A hold receipt's amount is blocked on the card (state 5); hold-confirm debits it.",
  "receipt.awaiting_supplier": "A receipt was paid but awaits the supplier's confirmation (state 57); receipt.paid or receipt.cancelled follows.",
  "receipt.cancelled": "A receipt is cancelled (state 21): by cancel, by the supplier's refusal, by the gateway after three failed OTP guesses (rule 2: `data.reason` `otp_attempts_exhausted`), or by the gateway when it expired unpaid or its hold was not confirmed in time (rule 12: `data.reason` `expired` or `hold_expired`). Where the payment service refused that cancel, `data.closed_at_edge` is true and `data.object.state` shows what the payment service shows (0 or 5): ask its support to cancel it.",
  "receipt.otp_attempts_exhausted": "The third failed OTP guess ended a receipt; receipt.cancelled follows once the payment service has cancelled it.",
  "receipt.fiscalized": "A paid receipt's fiscal data, missing when it was paid (its `ofd` showed no fiscal sign or QR address), is shown at last (rule 14): `data.object.ofd` holds the fiscal receipt; the state stays 4 (`data.previous_state` 4). Until then the receipt is listed by fiscal/pending.",
  "receipt.refund_fiscalized": "A refunded receipt's fiscal data, missing when it was cancelled, is shown at last (rule 14): `data.object.ofd` holds the refund's fiscal receipt; the state stays 21 (`data.previous_state` 21). Until then the receipt is listed by fiscal/pending.",
  "transfer.created": "A card-to-card transfer was created.",
  "transfer.paid": "A transfer is paid.",
  "transfer.cancelled": "A transfer is cancelled.",
  "transfer.expired": "A transfer still unpaid RECEIPT_EXPIRY_HOURS after its creation is closed at the gateway (rule 12; `data.reason` `expired`): every later operation on it answers `receipt_expired`.",
  "transfer.otp_attempts_exhausted": "The third failed OTP guess closed a transfer at the gateway: every later operation on it is refused."
};
var EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES);
var DELIVERY_STATUSES = ["pending", "delivered", "failed"];
var kindOfEvent = /* @__PURE__ */ __name((type) => Object.keys(KINDS).find((kind) => type.startsWith(`${kind}.`)) ?? "receipt", "kindOfEvent");
var DATA = ',"data":{';
function withObjectType(body) {
  const at = body.indexOf(DATA);
  if (at < 0 || body.startsWith('"object_type":', at + DATA.length)) return body;
  let event;
  try {
    event = JSON.parse(body);
  } catch {
    return body;
  }
  if (event.data?.object_type !== void 0 || typeof event.type !== "string" || !Object.hasOwn(EVENT_TYPES, event.type)) return body;
  const cut = at + DATA.length;
  return `${body.slice(0, cut)}"object_type":${JSON.stringify(kindOfEvent(event.type))},${body.slice(cut)}`;
}
__name(withObjectType, "withObjectType");
var kindOf = kindOfEvent;
var EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
function recordIdOf(event) {
  return event.data.object[KINDS[kindOfEvent(event.type)].idField];
}
__name(recordIdOf, "recordIdOf");
function assertWellFormed(event) {
  const problem = !EVENT_ID.test(event.id) ? "its id is not evt_<ULID>" : !Object.hasOwn(EVENT_TYPES, event.type) ? `its type ${JSON.stringify(event.type)} is not an event type` : !Number.isSafeInteger(event.sequence) || event.sequence < 1 ? "its sequence is not a positive integer" : event.data.object_type !== kindOfEvent(event.type) ? `its data.object_type is not ${JSON.stringify(kindOfEvent(event.type))}` : typeof recordIdOf(event) !== "string" || recordIdOf(event) === "" ? `its data.object has no ${KINDS[kindOfEvent(event.type)].idField}` : null;
  if (problem) throw new TypeError(`Event ${JSON.stringify(event.id)} cannot be published: ${problem}.`);
}
__name(assertWellFormed, "assertWellFormed");

// src/events/log-database.ts
var EVENT_TYPE_CODES = {
  "receipt.created": 1,
  "receipt.paid": 2,
  "receipt.held": 3,
  "receipt.awaiting_supplier": 4,
  "receipt.cancelled": 5,
  "receipt.otp_attempts_exhausted": 6,
  "transfer.created": 7,
  "transfer.paid": 8,
  "transfer.cancelled": 9,
  "transfer.otp_attempts_exhausted": 10,
  "transfer.expired": 11,
  "receipt.fiscalized": 12,
  "receipt.refund_fiscalized": 13
};
var DELIVERY_STATUS_CODES = { pending: 0, delivered: 1, failed: 2 };
var INDEXED_TYPES = /* @__PURE__ */ new Set([
  "receipt.held",
  "receipt.awaiting_supplier",
  "receipt.otp_attempts_exhausted",
  "transfer.cancelled",
  "transfer.otp_attempts_exhausted",
  "receipt.fiscalized",
  "receipt.refund_fiscalized"
]);
var EVENT_TABLES = ["events", ...slotNames("events")];
var eventTableDefinition = /* @__PURE__ */ __name((table2) => [
  `CREATE TABLE ${table2} (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID`,
  `CREATE INDEX ${table2}_watched ON ${table2} (status, id) WHERE watched = 1`,
  `CREATE INDEX ${table2}_by_type ON ${table2} (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13`
], "eventTableDefinition");
var acrossLog = /* @__PURE__ */ __name((arm, tables = EVENT_TABLES) => unionAll(tables.map((table2) => `SELECT * FROM (${arm(table2)})`)), "acrossLog");
var onEveryLogTable = /* @__PURE__ */ __name((db, sql2, ...values) => EVENT_TABLES.map((table2) => db.prepare(sql2(table2)).bind(...values)), "onEveryLogTable");
var everyLogTable = /* @__PURE__ */ __name((statements) => EVENT_TABLES.flatMap(statements), "everyLogTable");
var withTable = /* @__PURE__ */ __name((columns, table2, where) => `SELECT ${columns}, '${table2}' AS log_table FROM ${table2} WHERE ${where}`, "withTable");
var knownTable = /* @__PURE__ */ __name((table2) => table2 !== void 0 && EVENT_TABLES.includes(table2) ? table2 : void 0, "knownTable");
async function onTheTableRead(db, items, idOf2, tableOf, there, everywhere) {
  const byTable = /* @__PURE__ */ new Map();
  const unknown = [];
  for (const item of items) {
    const table2 = knownTable(tableOf(idOf2(item)));
    if (table2 === void 0) unknown.push(item);
    else byTable.set(table2, [...byTable.get(table2) ?? [], item]);
  }
  const rows = [];
  if (byTable.size > 0)
    for (const result of await db.batch([...byTable].flatMap(([table2, some]) => there(table2, some)))) rows.push(...result.results);
  const changed = new Set(rows.map((row) => row.id));
  const rest = [...unknown, ...[...byTable.values()].flat().filter((item) => !changed.has(idOf2(item)))];
  if (rest.length > 0) for (const result of await db.batch(everywhere(rest))) rows.push(...result.results);
  return rows;
}
__name(onTheTableRead, "onTheTableRead");
var TYPE_OF_CODE = new Map(Object.entries(EVENT_TYPE_CODES).map(([type, code]) => [code, type]));
var STATUS_OF_CODE = new Map(Object.entries(DELIVERY_STATUS_CODES).map(([status, code]) => [code, status]));
function decodeRow(row) {
  const type = TYPE_OF_CODE.get(row.type) ?? "receipt.created";
  return {
    id: row.id,
    record_id: row.record_id,
    kind: kindOf(type),
    type,
    delivery_status: STATUS_OF_CODE.get(row.status) ?? "failed",
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    next_attempt_at: row.next_attempt_at,
    pending_since: row.pending_since
  };
}
__name(decodeRow, "decodeRow");
function withBody(row, body) {
  const event = JSON.parse(body);
  return { ...row, body, sequence: event.sequence, created: event.created, owner: event.data.owner, request_id: event.request_id };
}
__name(withBody, "withBody");
var unpack = /* @__PURE__ */ __name((item) => "body" in item && "event" in item ? item : { event: item, body: JSON.stringify(item) }, "unpack");
var MAX_EVENTS_PER_WRITE = 50;
var idAt = /* @__PURE__ */ __name((at) => `evt_${encodeTime(Math.max(0, at), 10)}`, "idAt");
function statementColumns(event) {
  const line = lineFields(event);
  if (!line) return [null, null, null, null, null, null, null, null];
  return [STATEMENT_CHANGES[line.change], line.amount, line.commission, line.merchant, line.tid, line.owner, line.state, line.fiscal_sign];
}
__name(statementColumns, "statementColumns");
var logTableAt = /* @__PURE__ */ __name((now, deliveredMs) => `events_${slotAt(now, slotPeriodMs(deliveredMs))}`, "logTableAt");
var loggedNowhereElse = /* @__PURE__ */ __name((into) => EVENT_TABLES.filter((table2) => table2 !== into).map((table2) => `NOT EXISTS (SELECT 1 FROM ${table2} WHERE id = ?1)`).join(" AND "), "loggedNowhereElse");
async function recordEvents(db, items, now = clock.now(), into = "events") {
  const pending = [];
  for (let start = 0; start < items.length; start += MAX_EVENTS_PER_WRITE) {
    const chunk = items.slice(start, start + MAX_EVENTS_PER_WRITE).map(unpack);
    const inserts = chunk.map(
      ({ event }) => db.prepare(
        `INSERT INTO ${into} (id, record_id, type, next_attempt_at, pending_since, watched,
                               change, amount, commission, merchant, tid, owner, state, fiscal_sign)
           SELECT ?1, ?2, ?3, ?4, ?4, CASE WHEN ?1 <= (SELECT MAX(id) FROM events_cursors) THEN 1 END,
                  ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12
           WHERE ${loggedNowhereElse(into)}
           ON CONFLICT (id) DO NOTHING RETURNING id`
      ).bind(event.id, recordIdOf(event), EVENT_TYPE_CODES[event.type], now, ...statementColumns(event))
    );
    const written = new Set((await db.batch(inserts)).flatMap((result) => result.results.map((row) => row.id)));
    const bodyOf2 = new Map(chunk.map(({ event, body }) => [event.id, body]));
    const before = [...bodyOf2.keys()].filter((id) => !written.has(id));
    const stillPending = before.length === 0 ? /* @__PURE__ */ new Set() : await pendingOf(db, before);
    for (const [id, payload] of bodyOf2) if (written.has(id) || stillPending.has(id)) pending.push({ id, payload });
  }
  return pending;
}
__name(recordEvents, "recordEvents");
async function pendingOf(db, ids) {
  const { results } = await db.prepare(acrossLog((table2) => `SELECT id FROM ${table2} WHERE status = 0 AND id IN (${placeholders(ids)})`)).bind(...ids).all();
  return new Set(results.map((row) => row.id));
}
__name(pendingOf, "pendingOf");
async function findEvent(db, id) {
  const row = await db.prepare(acrossLog((table2) => withTable("*", table2, "id = ?1"))).bind(id).first();
  return row ? { ...decodeRow(row), table: row.log_table } : null;
}
__name(findEvent, "findEvent");
async function listEvents(db, query) {
  const where = [];
  const params = [];
  const add = /* @__PURE__ */ __name((clause, value) => {
    params.push(value);
    where.push(clause.replaceAll("?", `?${params.length}`));
  }, "add");
  if (query.type !== void 0) add("type = ?", EVENT_TYPE_CODES[query.type]);
  if (query.delivery !== void 0) add("status = ?", DELIVERY_STATUS_CODES[query.delivery]);
  if (query.after !== void 0) add("id < ?", query.after);
  params.push(query.limit + 1);
  const limit = `?${params.length}`;
  const page2 = /* @__PURE__ */ __name((table2, extra, index) => {
    const all = [...where, ...extra];
    const from = index ? `${table2} INDEXED BY ${table2}_${index}` : table2;
    return `SELECT * FROM ${from} ${all.length ? `WHERE ${all.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${limit}`;
  }, "page");
  let arm = /* @__PURE__ */ __name((table2) => page2(table2, []), "arm");
  if (query.delivery === "failed") arm = /* @__PURE__ */ __name((table2) => page2(table2, ["watched = 1"], "watched"), "arm");
  else if (query.delivery === "pending")
    arm = /* @__PURE__ */ __name((table2) => `SELECT * FROM (${page2(table2, ["watched = 1"], "watched")})
           UNION ALL SELECT * FROM (${page2(table2, ["watched IS NULL", "id > (SELECT id FROM events_cursors WHERE name = 'sweep')"])})`, "arm");
  else if (query.type !== void 0 && INDEXED_TYPES.has(query.type)) {
    const code = EVENT_TYPE_CODES[query.type];
    arm = /* @__PURE__ */ __name((table2) => page2(table2, [`type = ${code}`], "by_type"), "arm");
  }
  const { results } = await db.prepare(`SELECT * FROM (${acrossLog(arm)}) ORDER BY id DESC LIMIT ${limit}`).bind(...params).all();
  return { rows: results.slice(0, query.limit).map(decodeRow), hasMore: results.length > query.limit };
}
__name(listEvents, "listEvents");
var MAX_IDS_PER_READ = 90;
var inChunks = /* @__PURE__ */ __name((ids) => Array.from({ length: Math.ceil(ids.length / MAX_IDS_PER_READ) }, (_, i) => ids.slice(i * MAX_IDS_PER_READ, (i + 1) * MAX_IDS_PER_READ)), "inChunks");
var placeholders = /* @__PURE__ */ __name((ids) => ids.map((_, i) => `?${i + 1}`).join(", "), "placeholders");
async function listEventsIn(db, ids, query) {
  const newestFirst = [...new Set(ids)].filter((id) => query.after === void 0 || id < query.after).sort((a, b) => a < b ? 1 : a > b ? -1 : 0);
  const rows = [];
  for (const chunk of inChunks(newestFirst)) {
    const params = [...chunk];
    const where = [`id IN (${placeholders(chunk)})`];
    if (query.type !== void 0) where.push(`type = ?${params.push(EVENT_TYPE_CODES[query.type])}`);
    if (query.delivery !== void 0) where.push(`status = ?${params.push(DELIVERY_STATUS_CODES[query.delivery])}`);
    const { results } = await db.prepare(
      `SELECT * FROM (${acrossLog((table2) => `SELECT * FROM ${table2} WHERE ${where.join(" AND ")}`)})
         ORDER BY id DESC LIMIT ?${params.push(query.limit + 1 - rows.length)}`
    ).bind(...params).all();
    rows.push(...results);
    if (rows.length > query.limit) break;
  }
  return { rows: rows.slice(0, query.limit).map(decodeRow), hasMore: rows.length > query.limit };
}
__name(listEventsIn, "listEventsIn");
async function eventsIn(db, ids) {
  const rows = [];
  for (const chunk of inChunks(ids)) {
    const { results } = await db.prepare(acrossLog((table2) => `SELECT * FROM ${table2} WHERE id IN (${placeholders(chunk)})`)).bind(...chunk).all();
    rows.push(...results.map(decodeRow));
  }
  return rows;
}
__name(eventsIn, "eventsIn");
async function eventStatuses(db, ids) {
  const { results } = await db.prepare(acrossLog((table2) => withTable("id, status", table2, `id IN (${placeholders(ids)})`))).bind(...ids).all();
  return new Map(results.map((row) => [row.id, { status: row.status, table: row.log_table }]));
}
__name(eventStatuses, "eventStatuses");
async function holdsAnyOf(db, ids) {
  for (const chunk of inChunks(ids)) {
    const row = await db.prepare(`SELECT 1 AS found FROM (${acrossLog((table2) => `SELECT id FROM ${table2} WHERE id IN (${placeholders(chunk)})`)}) LIMIT 1`).bind(...chunk).first();
    if (row !== null) return true;
  }
  return false;
}
__name(holdsAnyOf, "holdsAnyOf");
async function recordDeliveries(db, deliveries) {
  if (deliveries.length === 0) return;
  const marks = /* @__PURE__ */ __name((table2, some) => {
    const statements = [];
    for (let start = 0; start < some.length; start += MAX_DELIVERIES_PER_WRITE) {
      const chunk = some.slice(start, start + MAX_DELIVERIES_PER_WRITE);
      const values = chunk.map((_, i) => `(?${3 * i + 1}, ?${3 * i + 2}, ?${3 * i + 3})`).join(", ");
      statements.push(
        db.prepare(
          `UPDATE ${table2} SET status = 1, attempts = attempts + 1, last_status = d.column2, last_error = NULL, delivered_at = d.column3
             FROM (VALUES ${values}) AS d WHERE ${table2}.id = d.column1 RETURNING id`
        ).bind(...chunk.flatMap(({ id, status, at }) => [id, status, at]))
      );
    }
    return statements;
  }, "marks");
  const tableOf = new Map(deliveries.map((delivery) => [delivery.id, delivery.table]));
  await onTheTableRead(
    db,
    deliveries,
    (delivery) => delivery.id,
    (id) => tableOf.get(id),
    marks,
    (some) => everyLogTable((table2) => marks(table2, some))
  );
}
__name(recordDeliveries, "recordDeliveries");
var MAX_DELIVERIES_PER_WRITE = 30;
var ATTEMPT_ANSWER_CHARS = 200;
function insertAttempt(db, id, attempt, tables = EVENT_TABLES) {
  const answer = String(redact(attempt.answer.slice(0, ATTEMPT_ANSWER_CHARS))).trim();
  return db.prepare(
    `INSERT OR IGNORE INTO event_attempts (event_id, at, seq, status, ok, answer)
       SELECT id, ?2, attempts, ?3, ?4, ?5 FROM (${acrossLog((table2) => `SELECT id, attempts FROM ${table2} WHERE id = ?1`, tables)})`
  ).bind(id, attempt.at, attempt.status, attempt.ok ? 1 : 0, answer);
}
__name(insertAttempt, "insertAttempt");
async function attemptsOf(db, ids) {
  if (ids.length === 0) return [];
  const attempts = [];
  for (let i = 0; i < ids.length; i += MAX_EVENTS_PER_WRITE) {
    const slice = ids.slice(i, i + MAX_EVENTS_PER_WRITE);
    const { results } = await db.prepare(
      `SELECT event_id, at, seq, status, ok, answer FROM event_attempts
         WHERE event_id IN (${slice.map((_, j) => `?${j + 1}`).join(", ")}) ORDER BY event_id, at, seq`
    ).bind(...slice).all();
    for (const row of results) attempts.push({ ...row, ok: row.ok === 1 });
    const delivered = await db.prepare(
      acrossLog(
        (table2) => `SELECT id, delivered_at, attempts, last_status FROM ${table2}
         WHERE id IN (${slice.map((_, j) => `?${j + 1}`).join(", ")}) AND status = 1 AND delivered_at IS NOT NULL`
      )
    ).bind(...slice).all();
    for (const row of delivered.results) {
      attempts.push({
        event_id: row.id,
        at: row.delivered_at,
        seq: row.attempts,
        status: row.last_status,
        ok: true,
        answer: row.last_status === null ? "delivered" : `HTTP ${row.last_status}`
      });
    }
  }
  return attempts.sort((a, b) => a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : a.at - b.at || a.seq - b.seq);
}
__name(attemptsOf, "attemptsOf");
async function pruneAttempts(db, olderThanMs, limit, now = clock.now()) {
  const result = await db.prepare(
    `DELETE FROM event_attempts WHERE (event_id, at, seq) IN (
         SELECT event_id, at, seq FROM event_attempts WHERE event_id < ?1 ORDER BY event_id LIMIT ?2)`
  ).bind(idAt(now - olderThanMs), limit).run();
  return result.meta.changes;
}
__name(pruneAttempts, "pruneAttempts");
async function recordFailedAttempt(db, id, outcome, table2) {
  const attempt = { at: outcome.at ?? clock.now(), status: outcome.status, ok: false, answer: outcome.error };
  const count = /* @__PURE__ */ __name((table3) => db.prepare(`UPDATE ${table3} SET attempts = attempts + 1, last_status = ?2, last_error = ?3, next_attempt_at = ?4 WHERE id = ?1 RETURNING id`).bind(id, outcome.status, outcome.error, outcome.nextAttemptAt), "count");
  await onTheTableRead(
    db,
    [id],
    (one) => one,
    () => table2,
    (table3) => [count(table3), insertAttempt(db, id, attempt, [table3])],
    () => [...everyLogTable((table3) => [count(table3)]), insertAttempt(db, id, attempt)]
  );
}
__name(recordFailedAttempt, "recordFailedAttempt");
async function recordDeadLettered(db, ids, tableOf = () => void 0) {
  if (ids.length === 0) return;
  const fail3 = /* @__PURE__ */ __name((table2, some) => inChunks(some).map(
    (chunk) => db.prepare(`UPDATE ${table2} SET status = 2, watched = 1 WHERE id IN (${placeholders(chunk)}) AND status = 0 RETURNING id`).bind(...chunk)
  ), "fail");
  await onTheTableRead(
    db,
    ids,
    (id) => id,
    tableOf,
    fail3,
    (some) => everyLogTable((table2) => fail3(table2, some))
  );
}
__name(recordDeadLettered, "recordDeadLettered");
async function markPendingAgain(db, id, now = clock.now()) {
  const before = await findEvent(db, id);
  if (!before) return null;
  const pend = /* @__PURE__ */ __name((table2) => db.prepare(
    `UPDATE ${table2} SET status = 0, delivered_at = NULL, next_attempt_at = ?2, pending_since = ?2, watched = 1 WHERE id = ?1 RETURNING id`
  ).bind(id, now), "pend");
  await onTheTableRead(
    db,
    [id],
    (one) => one,
    () => before.table,
    (table2) => [pend(table2)],
    () => everyLogTable((table2) => [pend(table2)])
  );
  return before;
}
__name(markPendingAgain, "markPendingAgain");
async function restoreDelivery(db, row) {
  const restore = /* @__PURE__ */ __name((table2) => db.prepare(`UPDATE ${table2} SET status = ?2, delivered_at = ?3 WHERE id = ?1 AND status = 0 RETURNING id`).bind(row.id, DELIVERY_STATUS_CODES[row.delivery_status], row.delivered_at), "restore");
  await onTheTableRead(
    db,
    [row.id],
    (one) => one,
    () => row.table,
    (table2) => [restore(table2)],
    () => everyLogTable((table2) => [restore(table2)])
  );
}
__name(restoreDelivery, "restoreDelivery");
async function pruneEventsOf(db, ids, deliveredMs, undeliveredMs, now) {
  if (ids.length === 0) return 0;
  const list = ids.map((_, i) => `?${i + 4}`).join(", ");
  const results = await db.batch(
    onEveryLogTable(
      db,
      (table2) => `DELETE FROM ${table2} WHERE id IN (${list}) AND ((status = ?1 AND id < ?2) OR (status <> ?1 AND id < ?3))`,
      DELIVERY_STATUS_CODES.delivered,
      idAt(now - deliveredMs),
      idAt(now - undeliveredMs),
      ...ids
    )
  );
  return changedRows(results);
}
__name(pruneEventsOf, "pruneEventsOf");
async function pruneWatched(db, status, olderThanMs, limit, now = clock.now()) {
  const result = await db.prepare(
    `DELETE FROM events WHERE id IN (
         SELECT id FROM events WHERE watched = 1 AND status = ?1 AND id < ?2 ORDER BY id LIMIT ?3)`
  ).bind(DELIVERY_STATUS_CODES[status], idAt(now - olderThanMs), limit).run();
  return result.meta.changes;
}
__name(pruneWatched, "pruneWatched");
var advanceWalk = /* @__PURE__ */ __name((name, tables = ["events"]) => `UPDATE events_cursors SET prev = id,
     id = COALESCE((SELECT MAX(id) FROM (SELECT id FROM (${acrossLog((table2) => `SELECT id FROM ${table2} WHERE id > events_cursors.id AND id < ?1 ORDER BY id LIMIT ?2`, tables)}) ORDER BY id LIMIT ?2)), id)
   WHERE name = '${name}' AND (prev <> id OR EXISTS (${acrossLog((table2) => `SELECT id FROM ${table2} WHERE id > events_cursors.id AND id < ?1 LIMIT 1`, tables)}))`, "advanceWalk");
var walkedBatch = /* @__PURE__ */ __name((name) => `id > (SELECT prev FROM events_cursors WHERE name = '${name}') AND id <= (SELECT id FROM events_cursors WHERE name = '${name}')`, "walkedBatch");
async function pruneDelivered(db, olderThanMs, limit, now = clock.now()) {
  const cutoff = idAt(now - olderThanMs);
  const [, , deleted, ahead2] = await db.batch([
    db.prepare(advanceWalk("prune")).bind(cutoff, limit),
    db.prepare(`UPDATE events SET watched = 1 WHERE ${walkedBatch("prune")} AND status <> 1 AND watched IS NULL`),
    db.prepare(`DELETE FROM events WHERE ${walkedBatch("prune")} AND status = 1`),
    db.prepare("SELECT EXISTS (SELECT 1 FROM events WHERE id > (SELECT id FROM events_cursors WHERE name = 'prune') AND id < ?1) AS more").bind(cutoff)
  ]);
  return { removed: deleted?.meta.changes ?? 0, more: (ahead2?.results[0]?.more ?? 0) === 1 };
}
__name(pruneDelivered, "pruneDelivered");
async function emptyEventSlot(db, deliveredMs, undeliveredMs, now) {
  const period = slotPeriodMs(deliveredMs);
  const current = `events_${slotAt(now, period)}`;
  const victim = `events_${slotToEmpty(now, period)}`;
  if (await db.prepare(`SELECT 1 AS taken FROM ${victim} LIMIT 1`).first() === null) return null;
  const [copied] = await db.batch([
    db.prepare(
      `INSERT INTO ${current} SELECT * FROM ${victim}
         WHERE (status = ?1 AND id >= ?2) OR (status <> ?1 AND id >= ?3)
         ON CONFLICT (id) DO NOTHING`
    ).bind(DELIVERY_STATUS_CODES.delivered, idAt(now - deliveredMs), idAt(now - undeliveredMs)),
    db.prepare(`DROP TABLE ${victim}`),
    ...eventTableDefinition(victim).map((sql2) => db.prepare(sql2))
  ]);
  return copied?.meta.changes ?? 0;
}
__name(emptyEventSlot, "emptyEventSlot");
var EMPTY_EVENT_SLOT_QUERIES = 1 + 2 + eventTableDefinition("events_0").length;
function deliveryOf(row) {
  return {
    status: row.delivery_status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at
  };
}
__name(deliveryOf, "deliveryOf");
var eventOf = /* @__PURE__ */ __name((row) => JSON.parse(row.body), "eventOf");
var withDelivery = /* @__PURE__ */ __name((row) => ({ ...eventOf(row), delivery: deliveryOf(row) }), "withDelivery");

// src/events/log.ts
async function byShard(env, items, recordIdOfItem) {
  const groups = /* @__PURE__ */ new Map();
  for (const item of items) {
    const { db } = await eventShardFor(env, recordIdOfItem(item));
    const group = groups.get(db);
    if (group) group.push(item);
    else groups.set(db, [item]);
  }
  return [...groups];
}
__name(byShard, "byShard");
async function logEvents(env, items, now = clock.shared()) {
  const groups = await byShard(env, items, (item) => recordIdOf(unpack(item).event));
  const into = logTableAt(now, retentionPolicy(env).deliveredEventsMs);
  return (await inPool(groups, ([db, group]) => recordEvents(db, group, now, into))).flat();
}
__name(logEvents, "logEvents");
async function locateEvent(env, id) {
  const found = await inPool(allShards(env), async ({ db: db2 }) => ({ db: db2, row: await findEvent(db2, id) }));
  const hits = found.filter((hit) => hit.row !== null);
  if (hits.length <= 1) return hits[0] ?? null;
  const { db } = await eventShardFor(env, hits[0].row.record_id);
  return hits.find((hit) => hit.db === db) ?? hits[0];
}
__name(locateEvent, "locateEvent");
async function keptEventIds(env, recordId) {
  const kinds = ["receipt", "transfer"];
  return (await Promise.all(kinds.map((kind) => receiptStub(env, kind, recordId).eventIds()))).flat();
}
__name(keptEventIds, "keptEventIds");
async function listLoggedEvents(env, query) {
  const { receiptId, ...filters } = query;
  const ids = receiptId !== void 0 ? await keptEventIds(env, receiptId) : null;
  if (ids?.length === 0) return { rows: [], hasMore: false };
  const page2 = /* @__PURE__ */ __name((db) => ids ? listEventsIn(db, ids, filters) : listEvents(db, filters), "page");
  const shards = receiptId !== void 0 ? await eventShardsFor(env, receiptId) : allShards(env);
  if (shards.length === 1) return page2(shards[0].db);
  const pages = await inPool(shards, async ({ db }) => ({ db, ...await page2(db) }));
  const rows = await withoutCopies(
    env,
    pages.flatMap((page3) => page3.rows.map((row) => ({ db: page3.db, row })))
  );
  rows.sort((a, b) => a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit || pages.some((page3) => page3.hasMore) };
}
__name(listLoggedEvents, "listLoggedEvents");
async function withoutCopies(env, rows) {
  const byId = /* @__PURE__ */ new Map();
  for (const hit of rows) byId.set(hit.row.id, [...byId.get(hit.row.id) ?? [], hit]);
  const kept = [];
  for (const hits of byId.values()) {
    if (hits.length === 1) kept.push(hits[0].row);
    else {
      const { db } = await eventShardFor(env, hits[0].row.record_id);
      kept.push((hits.find((hit) => hit.db === db) ?? hits[0]).row);
    }
  }
  return kept;
}
__name(withoutCopies, "withoutCopies");
async function findLogged(env, events) {
  const places = /* @__PURE__ */ new Map();
  const asked = /* @__PURE__ */ new Map();
  for (const event of events) {
    const dbs = (await eventShardsFor(env, recordIdOf(event))).map((shard) => shard.db);
    places.set(event.id, dbs);
    for (const db of dbs) asked.set(db, [...asked.get(db) ?? [], event.id]);
  }
  const logged = pickLogged(places, await statusesIn(asked));
  const missing = events.map((event) => event.id).filter((id) => !logged.has(id));
  const rest = allShards(env).flatMap(({ db }) => asked.has(db) ? [] : [db]);
  if (missing.length === 0 || rest.length === 0) return logged;
  const elsewhere = pickLogged(new Map(missing.map((id) => [id, rest])), await statusesIn(new Map(rest.map((db) => [db, missing]))));
  return new Map([...logged, ...elsewhere]);
}
__name(findLogged, "findLogged");
async function statusesIn(asked) {
  return new Map(await inPool([...asked], async ([db, ids]) => [db, await eventStatuses(db, ids)]));
}
__name(statusesIn, "statusesIn");
function pickLogged(places, statuses) {
  const logged = /* @__PURE__ */ new Map();
  for (const [id, dbs] of places) {
    const db = dbs.find((one) => statuses.get(one)?.has(id));
    const at = db && statuses.get(db).get(id);
    if (db && at) logged.set(id, { db, pending: at.status === DELIVERY_STATUS_CODES.pending, table: at.table });
  }
  return logged;
}
__name(pickLogged, "pickLogged");
async function recordHasLoggedEvents(env, recordId, eventIds) {
  if (eventIds.length === 0) return false;
  for (const { db } of await eventShardsFor(env, recordId)) if (await holdsAnyOf(db, eventIds)) return true;
  return false;
}
__name(recordHasLoggedEvents, "recordHasLoggedEvents");
async function pruneRecordEvents(env, recordId, eventIds, windows, now) {
  let removed = 0;
  for (const { db } of await eventShardsFor(env, recordId)) {
    for (let start = 0; start < eventIds.length; start += 90) {
      removed += await pruneEventsOf(db, eventIds.slice(start, start + 90), windows.deliveredMs, windows.undeliveredMs, now);
    }
  }
  return removed;
}
__name(pruneRecordEvents, "pruneRecordEvents");
async function newestEvents(env, records) {
  const kept = await inPool(records, async ({ kind, id }) => ({ id, ids: await receiptStub(env, kind, id).eventIds() }));
  const groups = /* @__PURE__ */ new Map();
  for (const { id, ids } of kept) {
    if (ids.length === 0) continue;
    for (const { db } of await eventShardsFor(env, id)) groups.set(db, [...groups.get(db) ?? [], ...ids]);
  }
  const newest = /* @__PURE__ */ new Map();
  for (const row of (await inPool([...groups], ([db, ids]) => eventsIn(db, ids))).flat()) {
    const key = `${row.kind}:${row.record_id}`;
    if ((newest.get(key)?.id ?? "") < row.id) newest.set(key, row);
  }
  return [...newest.values()];
}
__name(newestEvents, "newestEvents");
async function recordAttempts(env, recordId, eventIds) {
  if (eventIds.length === 0) return [];
  const shards = await eventShardsFor(env, recordId);
  const found = await inPool(shards, ({ db }) => attemptsOf(db, eventIds));
  return found.flat().sort((a, b) => a.at - b.at || a.seq - b.seq);
}
__name(recordAttempts, "recordAttempts");

// src/events/signing.ts
function encodeBase642(bytes2) {
  let binary = "";
  for (const byte of bytes2) binary += String.fromCharCode(byte);
  return btoa(binary);
}
__name(encodeBase642, "encodeBase64");
var cryptoKeys = /* @__PURE__ */ new WeakMap();
function hmacKey(key) {
  let cryptoKey = cryptoKeys.get(key);
  if (!cryptoKey) {
    cryptoKey = crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    cryptoKeys.set(key, cryptoKey);
  }
  return cryptoKey;
}
__name(hmacKey, "hmacKey");
async function signWebhook(keys, id, timestamp, body) {
  if (keys.length === 0) throw new Error("No webhook secret to sign with.");
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const signatures = await Promise.all(
    keys.map(async (key) => `v1,${encodeBase642(new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), content)))}`)
  );
  return signatures.join(" ");
}
__name(signWebhook, "signWebhook");

// src/events/delivery.ts
var RETRY_SCHEDULES = {
  production: [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 30720, 43200],
  development: [1, 2, 4, 8, 16, 32]
};
var retrySchedule = /* @__PURE__ */ __name((env) => env.ENVIRONMENT === "development" ? RETRY_SCHEDULES.development : RETRY_SCHEDULES.production, "retrySchedule");
function retryDelaySeconds(schedule, attempts) {
  return schedule[Math.min(Math.max(attempts, 1), schedule.length) - 1] ?? 60;
}
__name(retryDelaySeconds, "retryDelaySeconds");
var DEAD_LETTER_SUFFIX = "-dlq";
var isDeadLetterQueue = /* @__PURE__ */ __name((queue) => queue.endsWith(DEAD_LETTER_SUFFIX), "isDeadLetterQueue");
var DELIVERY_PARALLELISM = MAX_CONNECTIONS;
var ERROR_SNIPPET = 200;
async function postEvent(env, message2, now = Date.now()) {
  const { webhook } = readConfig(env);
  const timestamp = Math.floor(now / 1e3);
  const payload = withObjectType(message2.payload);
  let response;
  try {
    response = await fetch(webhook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "payments-gateway-webhooks/1",
        "webhook-id": message2.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signWebhook(webhook.keys, message2.id, timestamp, payload)
      },
      body: payload,
      // A redirect is an answer, not a 2xx: following it would send the event where nobody configured.
      redirect: "manual",
      signal: AbortSignal.timeout(webhook.timeoutMs)
    });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    return {
      ok: false,
      status: null,
      error: timedOut ? `no answer within ${webhook.timeoutMs} ms` : `request failed: ${err instanceof Error ? err.message : String(err)}`
    };
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel();
    return { ok: true, status: response.status };
  }
  const text2 = await response.text().catch(() => "");
  const snippet = String(redact(text2.slice(0, ERROR_SNIPPET))).trim();
  return { ok: false, status: response.status, error: `HTTP ${response.status}${snippet ? `: ${snippet}` : ""}` };
}
__name(postEvent, "postEvent");
var isEventMessage = /* @__PURE__ */ __name((body) => typeof body?.id === "string" && typeof body.payload === "string", "isEventMessage");
var isPage = /* @__PURE__ */ __name((body) => Array.isArray(body?.page), "isPage");
async function deliver(env, { message: message2, body, db, table: table2 }) {
  const { id } = body;
  const started = Date.now();
  const outcome = await postEvent(env, body);
  metric(env, "event_delivery", {
    outcome: outcome.ok ? "delivered" : "failed",
    ms: Date.now() - started,
    queued_ms: started - message2.timestamp.getTime()
  });
  if (outcome.ok) {
    const delivered = { event_id: id, attempt: message2.attempts, status: outcome.status };
    const line = currentLine();
    if (line) line.push("delivered", delivered);
    else log("info", "event_delivered", delivered);
    return { message: message2, ok: true, delivered: db ? { db, id, status: outcome.status, at: clock.now(), table: table2 } : null };
  }
  const delaySeconds = retryDelaySeconds(retrySchedule(env), message2.attempts);
  log("warn", "event_delivery_failed", {
    event_id: id,
    attempt: message2.attempts,
    status: outcome.status,
    error: outcome.error,
    retry_in_seconds: delaySeconds
  });
  try {
    if (db)
      await recordFailedAttempt(db, id, { status: outcome.status, error: outcome.error, nextAttemptAt: clock.now() + delaySeconds * 1e3 }, table2);
  } catch (err) {
    log("error", "event_log_write_failed", { event_id: id, error: String(err) });
  }
  return { message: message2, ok: false, delivered: null };
}
__name(deliver, "deliver");
function settleMessages(env, messages, attempts) {
  const failed = /* @__PURE__ */ new Set();
  for (const attempt of attempts) if (!attempt.ok) failed.add(attempt.message);
  const schedule = retrySchedule(env);
  for (const message2 of messages) {
    if (failed.has(message2)) message2.retry({ delaySeconds: retryDelaySeconds(schedule, message2.attempts) });
    else message2.ack();
  }
}
__name(settleMessages, "settleMessages");
async function writeDeliveries(deliveries) {
  const byDb = /* @__PURE__ */ new Map();
  for (const delivered of deliveries) {
    if (!delivered) continue;
    const list = byDb.get(delivered.db);
    if (list) list.push(delivered);
    else byDb.set(delivered.db, [delivered]);
  }
  await inPool([...byDb], async ([db, list]) => {
    try {
      await recordDeliveries(db, list);
    } catch (err) {
      for (const { id } of list) log("error", "event_log_write_failed", { event_id: id, error: String(err) });
    }
  });
}
__name(writeDeliveries, "writeDeliveries");
async function holdBack(env, messages, held, problems) {
  const schedule = retrySchedule(env);
  const heldMessages = new Set(held.map(({ message: message2 }) => message2));
  for (const message2 of messages) {
    if (heldMessages.has(message2)) message2.retry({ delaySeconds: retryDelaySeconds(schedule, message2.attempts) });
    else message2.ack();
  }
  log("error", "service_misconfigured", { problems: problems.join(" "), held_events: held.length });
  const error = "not sent: this deployment is misconfigured (503 service_misconfigured names the problem)";
  const now = clock.now();
  await inPool(held, async ({ message: message2, body, db, table: table2 }) => {
    if (!db) return;
    const nextAttemptAt = now + retryDelaySeconds(schedule, message2.attempts) * 1e3;
    await recordFailedAttempt(db, body.id, { status: null, error, nextAttemptAt }, table2).catch(
      (err) => log("error", "event_log_write_failed", { event_id: body.id, error: String(err) })
    );
  });
}
__name(holdBack, "holdBack");
var handleEventBatch = /* @__PURE__ */ __name(async (batch, env) => {
  const started = Date.now();
  const line = new LogLine("queue_batch", { queue: batch.queue, messages: batch.messages.length }, { sample: readConfig(env).logSuccessSample });
  try {
    await inLine(line, () => deliverBatch(batch, env));
  } finally {
    line.set({ ms: Date.now() - started });
    line.write();
  }
}, "handleEventBatch");
function eventsOf(message2, queue) {
  const bodies = isPage(message2.body) ? message2.body.page : [message2.body];
  const received = [];
  for (const body of bodies) {
    const event = isEventMessage(body) ? parseEvent(body.payload) : null;
    if (event && isEventMessage(body) && event.id === body.id) received.push({ message: message2, body, event });
    else log("error", "event_message_malformed", { message_id: message2.id, queue });
  }
  return received;
}
__name(eventsOf, "eventsOf");
async function deliverBatch(batch, env) {
  const received = batch.messages.flatMap((message2) => eventsOf(message2, batch.queue));
  const carrying = new Set(received.map(({ message: message2 }) => message2));
  for (const message2 of batch.messages) if (!carrying.has(message2)) message2.ack();
  const messages = batch.messages.filter((message2) => carrying.has(message2));
  const logged = await findLogged(
    env,
    received.map(({ event }) => event)
  );
  const notLogged = /* @__PURE__ */ __name((id) => log("warn", "event_not_logged", { event_id: id, queue: batch.queue }), "notLogged");
  if (isDeadLetterQueue(batch.queue)) {
    const groups = /* @__PURE__ */ new Map();
    for (const { event } of received) {
      const at = logged.get(event.id);
      if (at) groups.set(at.db, [...groups.get(at.db) ?? [], event.id]);
    }
    await inPool([...groups], ([db, ids]) => recordDeadLettered(db, ids, (id) => logged.get(id)?.table));
    for (const message2 of messages) message2.ack();
    for (const { body } of received) {
      if (!logged.has(body.id)) notLogged(body.id);
      log("error", "event_delivery_abandoned", { event_id: body.id, queue: batch.queue });
    }
    if (received.length > 0) metric(env, "event_failed", { operation: "dead_letter", count: received.length });
    return;
  }
  const toDeliver = [];
  for (const { message: message2, body } of received) {
    const at = logged.get(body.id);
    if (!at) notLogged(body.id);
    if (!at || at.pending) toDeliver.push({ message: message2, body, db: at?.db ?? null, table: at?.table });
  }
  const problems = configProblems(env);
  if (problems.length > 0) return holdBack(env, messages, toDeliver, problems);
  const attempts = await inPool(toDeliver, (due) => deliver(env, due), DELIVERY_PARALLELISM);
  settleMessages(env, messages, attempts);
  await writeDeliveries(attempts.map((attempt) => attempt.delivered));
}
__name(deliverBatch, "deliverBatch");
function parseEvent(payload) {
  try {
    const event = JSON.parse(withObjectType(payload));
    assertWellFormed(event);
    return event;
  } catch {
    return null;
  }
}
__name(parseEvent, "parseEvent");

// src/events/bodies.ts
async function withBodies(env, rows) {
  const byRecord = /* @__PURE__ */ new Map();
  for (const row of rows) {
    const key = `${row.kind}:${row.record_id}`;
    byRecord.set(key, [...byRecord.get(key) ?? [], row]);
  }
  const found = /* @__PURE__ */ new Map();
  await inPool([...byRecord.values()], async (group) => {
    const { kind, record_id: recordId } = group[0];
    try {
      const bodies = await receiptStub(env, kind, recordId).eventBodies(group.map((row) => row.id));
      for (const [id, body] of Object.entries(bodies)) found.set(id, body);
    } catch (err) {
      log("error", "event_body_read_failed", { kind, id: recordId, events: group.length, error: err instanceof Error ? err.message : String(err) });
    }
  });
  const complete = [];
  for (const row of rows) {
    const body = found.get(row.id);
    if (body === void 0) log("error", "event_body_missing", { event_id: row.id, kind: row.kind, id: row.record_id });
    else complete.push(withBody(row, body));
  }
  return complete;
}
__name(withBodies, "withBodies");

// src/events/publish.ts
var nextUlid = monotonicFactory();
var lastIdAt = 0;
function newEventId(now = clock.now()) {
  if (now < lastIdAt) nextUlid = monotonicFactory();
  lastIdAt = now;
  return `evt_${nextUlid(now)}`;
}
__name(newEventId, "newEventId");
var MAX_MESSAGES_PER_SEND = 100;
var MAX_BYTES_PER_SEND = 25e4;
var bytes = /* @__PURE__ */ __name((message2) => new TextEncoder().encode(message2.payload).length + message2.id.length + 32, "bytes");
function sendBatches(messages) {
  const batches = [];
  let current = [];
  let size = 0;
  for (const message2 of messages) {
    const n = bytes(message2);
    if (current.length > 0 && (current.length === MAX_MESSAGES_PER_SEND || size + n > MAX_BYTES_PER_SEND)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(message2);
    size += n;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
__name(sendBatches, "sendBatches");
async function enqueue(env, messages) {
  const queue = env.EVENTS;
  for (const batch of sendBatches(messages)) {
    await queue.sendBatch(batch.map((body) => ({ body, contentType: "json" })));
  }
}
__name(enqueue, "enqueue");
async function publishEvents(env, events) {
  if (events.length === 0) return;
  for (const event of events) assertWellFormed("event" in event && "body" in event ? event.event : event);
  const pending = await logEvents(env, events);
  await enqueue(env, pending);
}
__name(publishEvents, "publishEvents");
async function publishOutbox(env, entries) {
  await publishEvents(
    env,
    entries.map((entry) => ({ event: JSON.parse(entry.payload), body: entry.payload }))
  );
}
__name(publishOutbox, "publishOutbox");

// src/events/operations.ts
async function listEventPage(env, query) {
  const { rows, hasMore } = await listLoggedEvents(env, query);
  return { events: (await withBodies(env, rows)).map(withDelivery), has_more: hasMore };
}
__name(listEventPage, "listEventPage");
async function resendEvent(env, id) {
  const found = await locateEvent(env, id);
  if (!found) throw new ApiError("not_found", "No event with this id.");
  const [event] = await withBodies(env, [found.row]);
  if (!event) throw new ApiError("not_found", "This event's body is no longer kept, so it cannot be sent again.");
  const row = await markPendingAgain(found.db, id);
  if (!row) throw new ApiError("not_found", "No event with this id.");
  try {
    await enqueue(env, [{ id: event.id, payload: event.body }]);
  } catch (err) {
    await restoreDelivery(found.db, row).catch(() => void 0);
    throw err;
  }
  log("info", "event_resent", { event_id: id, was: row.delivery_status });
  return eventOf(event);
}
__name(resendEvent, "resendEvent");

// src/events/sweep.ts
var SWEEP_SETTINGS = {
  production: { staleMs: 5 * 6e4, horizonMs: 30 * 36e5 },
  development: { staleMs: 3e4, horizonMs: 15e4 }
};
var sweepSettings = /* @__PURE__ */ __name((env) => env.ENVIRONMENT === "development" ? SWEEP_SETTINGS.development : SWEEP_SETTINGS.production, "sweepSettings");
var REQUEUE_LIMIT = 100;
var SWEEP_RECORD_CALLS = 300;
var requeuesPerDatabase = /* @__PURE__ */ __name((databases2) => Math.max(1, Math.min(REQUEUE_LIMIT, Math.floor(SWEEP_RECORD_CALLS / Math.max(1, databases2)))), "requeuesPerDatabase");
var FAIL_LIMIT = 1e3;
var SWEEP_WALK_LIMIT = 1e4;
var SWEEP_SELECTS = {
  expired: /* @__PURE__ */ __name((table2) => `SELECT id FROM ${table2} WHERE watched = 1 AND status = 0 AND pending_since < ?1 ORDER BY id LIMIT ?2`, "expired"),
  overdue: /* @__PURE__ */ __name((table2) => `${withTable("id", table2, "watched = 1 AND status = 0 AND next_attempt_at < ?1")} ORDER BY id LIMIT ?2`, "overdue")
};
var SWEEP_WALK = {
  advance: advanceWalk("sweep", EVENT_TABLES),
  watch: /* @__PURE__ */ __name((table2) => `UPDATE ${table2} SET watched = 1 WHERE ${walkedBatch("sweep")} AND status <> 1 AND watched IS NULL`, "watch")
};
async function sweepDatabase(db, now, settings, requeues) {
  const tables = EVENT_TABLES.length;
  const results = await db.batch([
    db.prepare(SWEEP_WALK.advance).bind(idAt(now - settings.staleMs), SWEEP_WALK_LIMIT),
    ...EVENT_TABLES.map((table2) => db.prepare(SWEEP_WALK.watch(table2))),
    ...EVENT_TABLES.map(
      (table2) => db.prepare(`UPDATE ${table2} SET status = 2 WHERE id IN (${SWEEP_SELECTS.expired(table2)}) RETURNING id`).bind(now - settings.horizonMs, FAIL_LIMIT)
    ),
    // The overdue ones of the whole log, oldest first, at most `requeues`: each table's first `requeues`, then the
    // first of them all, each with the table it is in.
    db.prepare(`SELECT id, log_table FROM (${acrossLog(SWEEP_SELECTS.overdue)}) ORDER BY id LIMIT ?2`).bind(now - settings.staleMs, requeues)
  ]);
  const failed = results.slice(1 + tables, 1 + 2 * tables).flatMap((result) => result.results.map((row) => String(row.id)));
  const due = new Map((results.at(-1)?.results ?? []).map((row) => [String(row.id), String(row.log_table)]));
  if (due.size === 0) return { failed, overdue: [] };
  const byTable = /* @__PURE__ */ new Map();
  for (const [id, table2] of due) if (EVENT_TABLES.includes(table2)) byTable.set(table2, [...byTable.get(table2) ?? [], id]);
  const claimed = await db.batch(
    [...byTable].map(
      ([table2, ids]) => db.prepare(
        `UPDATE ${table2} SET next_attempt_at = ?3
           WHERE id IN (SELECT value FROM json_each(?2)) AND watched = 1 AND status = 0 AND next_attempt_at < ?1 RETURNING *`
      ).bind(now - settings.staleMs, JSON.stringify(ids), now)
    )
  );
  return { failed, overdue: claimed.flatMap((result) => result.results).map(decodeRow) };
}
__name(sweepDatabase, "sweepDatabase");
async function sweepEvents(env, now, settings = sweepSettings(env), databases2 = allShards(env)) {
  const report = { failed: 0, requeued: 0 };
  const errors = [];
  const requeues = requeuesPerDatabase(databases2.length);
  const overdue = await inPool(databases2, async ({ binding, db }) => {
    try {
      const swept = await sweepDatabase(db, now, settings, requeues);
      report.failed += swept.failed.length;
      for (const id of swept.failed) log("error", "event_delivery_abandoned", { event_id: id, by: "sweep", database: binding });
      return swept.overdue;
    } catch (err) {
      errors.push(err);
      log("error", "events_sweep_failed", { database: binding, error: err instanceof Error ? err.message : String(err) });
      return [];
    }
  });
  if (report.failed > 0) metric(env, "event_failed", { operation: "sweep", count: report.failed });
  try {
    const messages = (await withBodies(env, overdue.flat())).map((row) => ({ id: row.id, payload: row.body }));
    await enqueue(env, messages);
    report.requeued = messages.length;
    if (messages.length > 0) log("warn", "events_requeued", { events: messages.length, ids: messages.map((m) => m.id).join(" ") });
  } catch (err) {
    errors.push(err);
    log("error", "events_sweep_failed", { error: err instanceof Error ? err.message : String(err) });
  }
  if (errors.length > 0) throw new Error(`Event sweep failed (${errors.length} step(s))`, { cause: errors[0] });
  return report;
}
__name(sweepEvents, "sweepEvents");

// src/rules/caller.ts
var ownerOf = /* @__PURE__ */ __name((caller) => `${caller.kind}:${caller.id}`, "ownerOf");
var eventOwner = /* @__PURE__ */ __name((owner) => owner.startsWith("user:") ? owner.slice("user:".length) : "partner", "eventOwner");
var mayAccess = /* @__PURE__ */ __name((caller, owner) => caller.kind === "partner" || ownerOf(caller) === owner, "mayAccess");
var cancelledByFor = /* @__PURE__ */ __name((caller, asked, deploymentName) => caller.kind === "partner" ? asked : deploymentName, "cancelledByFor");

// src/shared/keyed-hash.ts
var hmacKeys = /* @__PURE__ */ new Map();
async function hmac(key, message2) {
  let cryptoKey = hmacKeys.get(key);
  if (!cryptoKey) {
    cryptoKey = crypto.subtle.importKey("raw", new TextEncoder().encode(key || "unkeyed"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(key, cryptoKey);
  }
  return new Uint8Array(await crypto.subtle.sign("HMAC", await cryptoKey, new TextEncoder().encode(message2)));
}
__name(hmac, "hmac");
var hex = /* @__PURE__ */ __name((bytes2) => [...bytes2].map((b) => b.toString(16).padStart(2, "0")).join(""), "hex");

// src/tids/tid-index.ts
var KIND_CODES = { receipt: 0, transfer: 1 };
var FENCE_TOKEN = "moved";
var STATUS_COMPLETED = 1;
var COLUMNS = "owner, tid, lower(hex(upstream_tid)) AS upstream_hex, kind, status, lower(hex(fingerprint)) AS fingerprint, claim_token, receipt_id, created_at, updated_at";
var TID_SLOTS = slotNames("tid_index");
var TID_TABLES = ["tid_index", ...TID_SLOTS];
var tidSlotSchema = /* @__PURE__ */ __name((table2) => [
  `CREATE TABLE ${table2} (
  owner        TEXT NOT NULL,
  tid          TEXT NOT NULL,
  upstream_tid BLOB,
  kind         INTEGER NOT NULL CHECK (kind IN (0, 1)),
  status       INTEGER NOT NULL CHECK (status IN (0, 1)),
  fingerprint  BLOB NOT NULL,
  claim_token  TEXT,
  receipt_id   TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (owner, tid)
) STRICT, WITHOUT ROWID`,
  `CREATE UNIQUE INDEX ${table2}_upstream_tid ON ${table2} (upstream_tid) WHERE upstream_tid IS NOT NULL`
], "tidSlotSchema");
var within = /* @__PURE__ */ __name((c) => `(claim_token IS '${FENCE_TOKEN}' AND created_at >= ${c} OR claim_token IS NOT '${FENCE_TOKEN}' AND (status = 0 OR updated_at >= ${c}))`, "within");
var SELECT_KEY = unionAll(TID_TABLES.map((table2) => `SELECT ${COLUMNS} FROM ${table2} WHERE owner = ?1 AND tid = ?2 AND ${within("?3")}`));
var onEveryTidTable = /* @__PURE__ */ __name((db, sql2, ...values) => TID_TABLES.map((table2) => db.prepare(sql2(table2)).bind(...values)), "onEveryTidTable");
var claimTable = /* @__PURE__ */ __name((now, windowMs2) => TID_SLOTS[slotAt(now, slotPeriodMs(windowMs2))], "claimTable");
var uuidOf = /* @__PURE__ */ __name((h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`, "uuidOf");
var storedUpstream = /* @__PURE__ */ __name((tid, upstreamTid) => upstreamTid === tid ? null : upstreamTid.replaceAll("-", ""), "storedUpstream");
function toRow(raw2) {
  return {
    owner: raw2.owner,
    tid: raw2.tid,
    upstream_tid: raw2.upstream_hex ? uuidOf(raw2.upstream_hex) : raw2.tid,
    kind: raw2.kind === KIND_CODES.transfer ? "transfer" : "receipt",
    fingerprint: raw2.fingerprint,
    status: raw2.status === STATUS_COMPLETED ? "completed" : "pending",
    claim_token: raw2.claim_token,
    receipt_id: raw2.receipt_id,
    created_at: raw2.created_at,
    updated_at: raw2.updated_at
  };
}
__name(toRow, "toRow");
var DEFAULT_WINDOW_MS = RETENTION_DEFAULTS.tidRetentionDays * DAY_MS2;
function insertClaim(db, req, token, createdAt, updatedAt, now) {
  const windowMs2 = req.windowMs ?? DEFAULT_WINDOW_MS;
  return db.prepare(
    `INSERT INTO ${claimTable(now, windowMs2)} (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
       SELECT ?1, ?2, unhex(?3), ?4, 0, unhex(?5), ?6, ?7, ?8
       WHERE ${TID_TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t} WHERE owner = ?1 AND tid = ?2 AND ${within("?9")})`).join(" AND ")}
         AND (?3 IS NULL OR ${TID_TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t} WHERE upstream_tid = unhex(?3) AND ${within("?9")})`).join(" AND ")})
       ON CONFLICT (owner, tid) DO UPDATE SET upstream_tid = excluded.upstream_tid, kind = excluded.kind, status = 0,
           fingerprint = excluded.fingerprint, claim_token = excluded.claim_token, receipt_id = NULL,
           created_at = excluded.created_at, updated_at = excluded.updated_at
         WHERE NOT ${within("?9")} ON CONFLICT DO NOTHING`
  ).bind(
    req.owner,
    req.tid,
    storedUpstream(req.tid, req.upstreamTid),
    KIND_CODES[req.kind],
    req.fingerprint,
    token,
    createdAt,
    updatedAt,
    now - windowMs2
  );
}
__name(insertClaim, "insertClaim");
async function claimTid(db, req, now = clock.now()) {
  const windowMs2 = req.windowMs ?? DEFAULT_WINDOW_MS;
  for (let round = 0; round < 2; round++) {
    const token = crypto.randomUUID();
    const [inserted, found] = await db.batch([
      insertClaim(db, req, token, now, now, now),
      db.prepare(SELECT_KEY).bind(req.owner, req.tid, now - windowMs2)
    ]);
    if (inserted.meta.changes === 1)
      return { kind: "claimed", token, takeover: false, upstreamTid: req.upstreamTid, table: claimTable(now, windowMs2) };
    const stored = found?.results[0];
    if (!stored) {
      if (req.upstreamTid !== req.tid && await findByUpstreamTid(db, req.upstreamTid, windowMs2, now)) return { kind: "conflict" };
      continue;
    }
    const row = toRow(stored);
    const same = row.fingerprint === req.fingerprint || (req.formerFingerprints ?? []).includes(row.fingerprint);
    if (!same || row.kind !== req.kind) return { kind: "conflict", row };
    if (row.status === "completed") return { kind: "replay", row };
    if (!leaseExpired(row, req.leaseMs, now)) {
      const left = Math.min(req.leaseMs, row.updated_at + req.leaseMs - now);
      return { kind: "in_progress", retryAfterSeconds: Math.max(1, Math.ceil(left / 1e3)) };
    }
    const taken = await db.batch(
      onEveryTidTable(
        db,
        (table2) => `UPDATE ${table2} SET claim_token = ?1, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5 AND status = 0`,
        token,
        now,
        req.owner,
        req.tid,
        row.claim_token
      )
    );
    if (changedRows(taken) === 1) {
      const table2 = TID_TABLES[taken.findIndex((result) => result.meta.changes === 1)];
      return { kind: "claimed", token, takeover: true, upstreamTid: row.upstream_tid, table: table2 };
    }
    return { kind: "in_progress", retryAfterSeconds: 1 };
  }
  return { kind: "in_progress", retryAfterSeconds: 1 };
}
__name(claimTid, "claimTid");
var leaseMs = /* @__PURE__ */ __name((upstreamTimeoutMs) => Math.min(5 * 6e4, Math.max(3e4, 3 * upstreamTimeoutMs)), "leaseMs");
function leaseExpired(row, leaseMs2, now) {
  return row.status === "pending" && now - row.updated_at >= leaseMs2;
}
__name(leaseExpired, "leaseExpired");
async function completeTid(db, claim, receiptId, answeredAt = clock.now(), windowMs2 = DEFAULT_WINDOW_MS, where) {
  const complete = /* @__PURE__ */ __name((table2) => db.prepare(
    `UPDATE ${table2} SET status = 1, receipt_id = ?1, claim_token = NULL, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5`
  ).bind(receiptId, answeredAt, claim.owner, claim.tid, claim.token), "complete");
  const locate2 = db.prepare(LOCATE_CLAIM).bind(claim.owner, claim.tid, claim.token);
  let elsewhere;
  if (where) {
    if ((await complete(where).run()).meta.changes === 1) return true;
    elsewhere = (await locate2.all()).results;
  } else {
    const [first, found] = await db.batch([complete(claimTable(answeredAt, windowMs2)), locate2]);
    if (first.meta.changes === 1) return true;
    elsewhere = found.results;
  }
  for (const { at } of elsewhere) if ((await complete(at).run()).meta.changes === 1) return true;
  return false;
}
__name(completeTid, "completeTid");
var LOCATE_CLAIM = unionAll(TID_TABLES.map((table2) => `SELECT '${table2}' AS at FROM ${table2} WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3`));
async function releaseTid(db, claim) {
  await db.batch(
    onEveryTidTable(
      db,
      (table2) => `DELETE FROM ${table2} WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3 AND status = 0`,
      claim.owner,
      claim.tid,
      claim.token
    )
  );
}
__name(releaseTid, "releaseTid");
async function expireTid(db, claim) {
  await db.batch(
    onEveryTidTable(
      db,
      (table2) => `UPDATE ${table2} SET status = 0, receipt_id = NULL, updated_at = 0 WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3`,
      claim.owner,
      claim.tid,
      claim.token
    )
  );
}
__name(expireTid, "expireTid");
async function findTid(db, owner, tid, windowMs2 = DEFAULT_WINDOW_MS, now = clock.now()) {
  const raw2 = await db.prepare(SELECT_KEY).bind(owner, tid, now - windowMs2).first();
  return raw2 ? toRow(raw2) : null;
}
__name(findTid, "findTid");
var TID_LATE_MS = 36e5;
var CLAMP_WALK = `UPDATE tid_walk SET at = COALESCE((SELECT MAX(rowid) FROM tid_index), 0)
   WHERE name = 'retention' AND at > COALESCE((SELECT MAX(rowid) FROM tid_index), 0)`;
async function pruneTids(db, retentionMs, limit, now = clock.now()) {
  const cutoff = now - retentionMs;
  const walked = "rowid > (SELECT prev FROM tid_walk WHERE name = 'retention') AND rowid <= (SELECT at FROM tid_walk WHERE name = 'retention')";
  const [, passed, deleted] = await db.batch([
    db.prepare(
      `WITH start AS (SELECT at FROM tid_walk WHERE name = 'retention'),
              ahead AS (SELECT rowid, status, created_at, updated_at FROM tid_index WHERE rowid > (SELECT at FROM start) ORDER BY rowid LIMIT ?2),
              wait AS (SELECT MIN(rowid) AS at FROM ahead
                       WHERE created_at >= ?1 OR (status = 0 AND created_at >= ?3)
                          OR (status = 1 AND updated_at >= ?1 AND updated_at - created_at <= ${TID_LATE_MS})),
              next AS (SELECT COALESCE((SELECT MAX(rowid) FROM ahead WHERE rowid < COALESCE((SELECT at FROM wait), 9223372036854775807)),
                                       (SELECT at FROM start)) AS at)
         UPDATE tid_walk SET prev = at, at = (SELECT at FROM next)
         WHERE name = 'retention' AND (prev <> at OR (SELECT at FROM next) <> at)`
    ).bind(cutoff, limit, now - TID_LATE_MS),
    db.prepare(`SELECT COUNT(*) AS n FROM tid_index WHERE ${walked}`),
    db.prepare(`DELETE FROM tid_index WHERE ${walked} AND status = 1 AND updated_at < ?1`).bind(cutoff),
    db.prepare(CLAMP_WALK)
  ]);
  return { removed: deleted?.meta.changes ?? 0, more: (passed?.results[0]?.n ?? 0) >= limit };
}
__name(pruneTids, "pruneTids");
async function deleteLateTids(db, retentionMs, limit, now = clock.now()) {
  const [deleted] = await db.batch([
    db.prepare(
      `DELETE FROM tid_index WHERE rowid IN (
           SELECT rowid FROM tid_index WHERE status = 1 AND updated_at - created_at > ${TID_LATE_MS} AND updated_at < ?1 ORDER BY updated_at LIMIT ?2)`
    ).bind(now - retentionMs, limit),
    db.prepare(CLAMP_WALK)
  ]);
  return deleted?.meta.changes ?? 0;
}
__name(deleteLateTids, "deleteLateTids");
async function findByUpstreamTid(db, upstreamTid, windowMs2, now) {
  const sql2 = unionAll(TID_TABLES.map((table2) => `SELECT 1 AS found FROM ${table2} WHERE upstream_tid = unhex(?1) AND ${within("?2")}`));
  return await db.prepare(sql2).bind(upstreamTid.replaceAll("-", ""), now - windowMs2).first() !== null;
}
__name(findByUpstreamTid, "findByUpstreamTid");
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== void 0).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
__name(canonical, "canonical");
async function fingerprint(key, request) {
  return hex((await hmac(key, `fingerprint\0${canonical(request)}`)).slice(0, 16));
}
__name(fingerprint, "fingerprint");
async function upstreamTidFor(key, owner, tid) {
  if (!owner.startsWith("user:")) return tid;
  const bytes2 = (await hmac(key, `user-tid\0${owner}\0${tid}`)).slice(0, 16);
  bytes2[6] = bytes2[6] & 15 | 128;
  bytes2[8] = bytes2[8] & 63 | 128;
  const h = hex(bytes2);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
__name(upstreamTidFor, "upstreamTidFor");
var FENCE_UNTIL = Number.MAX_SAFE_INTEGER;
var isFence = /* @__PURE__ */ __name((row) => row.claim_token === FENCE_TOKEN, "isFence");
async function claimIndexFor(env, req, now = clock.now()) {
  const [here, ...before] = await tidShardsFor(env, req.owner, req.tid);
  if (before.length === 0) return here;
  const windowMs2 = retentionPolicy(env).tidRetentionMs;
  const claimedBefore = await inPool(before, async (shard) => {
    const { db } = shard;
    const [, found] = await db.batch([
      insertClaim(db, { ...req, windowMs: windowMs2 }, FENCE_TOKEN, now, FENCE_UNTIL, now),
      db.prepare(SELECT_KEY).bind(req.owner, req.tid, now - windowMs2)
    ]);
    const row = found?.results[0];
    return row && !isFence(row) ? shard : null;
  });
  return claimedBefore.find((shard) => shard !== null) ?? here;
}
__name(claimIndexFor, "claimIndexFor");
async function readIndexFor(env, owner, tid) {
  const places = await tidShardsFor(env, owner, tid);
  if (places.length === 1) return places[0].db;
  const windowMs2 = retentionPolicy(env).tidRetentionMs;
  const rows = await inPool(places, async ({ db }) => ({ db, row: await findTid(db, owner, tid, windowMs2) }));
  return (rows.find(({ row }) => row !== null && !isFence(row)) ?? rows[0]).db;
}
__name(readIndexFor, "readIndexFor");
async function deleteFences(db, retentionMs, limit, now = clock.now()) {
  const [deleted] = await db.batch([
    db.prepare(
      `DELETE FROM tid_index WHERE rowid IN (
           SELECT rowid FROM tid_index WHERE claim_token = '${FENCE_TOKEN}' AND created_at < ?1 ORDER BY created_at LIMIT ?2)`
    ).bind(now - retentionMs, limit),
    db.prepare(CLAMP_WALK)
  ]);
  return deleted?.meta.changes ?? 0;
}
__name(deleteFences, "deleteFences");
async function latestTids(env, limit, now = clock.now()) {
  const cutoff = now - retentionPolicy(env).tidRetentionMs;
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db.prepare(
      unionAll(
        TID_TABLES.map((table2) => `SELECT ${COLUMNS} FROM ${table2} WHERE claim_token IS NOT '${FENCE_TOKEN}' AND ${within("?2")}`),
        "ORDER BY created_at DESC, owner, tid LIMIT ?1"
      )
    ).bind(limit, cutoff).all();
    return results.map(toRow);
  });
  return pages.flat().sort((a, b) => b.created_at - a.created_at).slice(0, limit);
}
__name(latestTids, "latestTids");
async function ownerTids(env, owner, limit, now = clock.now()) {
  const cutoff = now - retentionPolicy(env).tidRetentionMs;
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db.prepare(
      unionAll(
        TID_TABLES.map(
          (table2) => `SELECT ${COLUMNS} FROM ${table2} WHERE owner = ?1 AND receipt_id IS NOT NULL AND claim_token IS NOT '${FENCE_TOKEN}' AND ${within("?3")}`
        ),
        "ORDER BY created_at DESC LIMIT ?2"
      )
    ).bind(owner, limit, cutoff).all();
    return results.map(toRow);
  });
  return pages.flat().sort((a, b) => b.created_at - a.created_at).slice(0, limit);
}
__name(ownerTids, "ownerTids");
function tidSlotEmptying(db, victim, current, cutoff) {
  const columns = "owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at";
  const replaced = columns.split(", ").filter((c) => c !== "owner" && c !== "tid").map((c) => `${c} = excluded.${c}`).join(", ");
  return [
    db.prepare(
      `INSERT INTO ${current} (${columns}) SELECT ${columns} FROM ${victim} WHERE ${within("?1")}
         ON CONFLICT (owner, tid) DO UPDATE SET ${replaced}`
    ).bind(cutoff),
    db.prepare(`DROP TABLE ${victim}`),
    ...tidSlotSchema(victim).map((sql2) => db.prepare(sql2))
  ];
}
__name(tidSlotEmptying, "tidSlotEmptying");
async function emptyTidSlot(db, windowMs2, now = clock.now()) {
  const period = slotPeriodMs(windowMs2);
  const victim = TID_SLOTS[slotToEmpty(now, period)];
  if (await db.prepare(`SELECT 1 AS found FROM ${victim} LIMIT 1`).first() === null) return 0;
  await db.batch(tidSlotEmptying(db, victim, TID_SLOTS[slotAt(now, period)], now - windowMs2));
  return 0;
}
__name(emptyTidSlot, "emptyTidSlot");
var EMPTY_TID_SLOT_QUERIES = 1 + 2 + tidSlotSchema("tid_index_0").length;
async function ownerRowsAfter(db, owner, after, limit) {
  const select = /* @__PURE__ */ __name((where, tail) => unionAll(
    TID_TABLES.map(
      (table2) => `SELECT tid, CASE kind WHEN 1 THEN 'transfer' ELSE 'receipt' END AS kind, receipt_id FROM ${table2} WHERE owner = ?1 AND ${where}`
    ),
    tail
  ), "select");
  const { results: page2 } = await db.prepare(select("tid > ?2", "ORDER BY tid LIMIT ?3")).bind(owner, after, limit).all();
  if (page2.length < limit || page2.length === 0) return page2;
  const last = page2[page2.length - 1].tid;
  const { results: rest } = await db.prepare(select("tid = ?2")).bind(owner, last).all();
  return [...page2.filter((row) => row.tid !== last), ...rest];
}
__name(ownerRowsAfter, "ownerRowsAfter");

// src/console/data.ts
var LATEST_RECORDS = 50;
var EVENTS_PER_RECORD = 100;
var MAX_ID_LENGTH = 128;
function currentState(audit2, latest) {
  const last = audit2.at(-1);
  if (latest?.state != null && (!last || latest.created > last.at)) return latest.state;
  return last?.state ?? null;
}
__name(currentState, "currentState");
function sandboxObject(env) {
  if (!env.SANDBOX) throw new Error("SANDBOX binding is missing");
  return env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
}
__name(sandboxObject, "sandboxObject");
async function latestRecords(env, limit = LATEST_RECORDS) {
  const rows = await latestTids(env, limit);
  const records = rows.flatMap((row) => row.status === "completed" && row.receipt_id ? [{ kind: row.kind, id: row.receipt_id }] : []);
  const [latest, trails] = await Promise.all([
    latestEventsOf(env, records),
    Promise.all(rows.map((row) => row.status === "completed" && row.receipt_id ? describeOf(env, row.kind, row.receipt_id) : null))
  ]);
  return rows.map((row, i) => {
    const completed = row.status === "completed" && row.receipt_id !== null;
    return {
      kind: row.kind,
      id: completed ? row.receipt_id : null,
      tid: row.tid,
      owner: eventOwner(row.owner),
      state: completed ? currentState(trails[i]?.entries ?? [], latest.get(`${row.kind}:${row.receipt_id}`) ?? null) : null,
      amount: trails[i]?.amount ?? null,
      createdAt: row.created_at,
      aheadMs: trails[i]?.aheadMs ?? null
    };
  });
}
__name(latestRecords, "latestRecords");
async function recordView(env, kind, id) {
  if (id.length === 0 || id.length > MAX_ID_LENGTH) return null;
  const trail = await describeOf(env, kind, id);
  if (!trail) return null;
  const [eventPage, allCalls] = await Promise.all([
    listLoggedEvents(env, { receiptId: id, limit: EVENTS_PER_RECORD }),
    // The call log filters by id only; the create names the record by its upstream tid.
    sandboxObject(env).calls()
  ]);
  const events = (await withBodies(
    env,
    eventPage.rows.filter((row) => row.kind === kind)
  )).reverse();
  const calls = allCalls.filter((call) => call.id === id || call.tid === trail.upstreamTid);
  const newest = events.at(-1);
  return {
    kind,
    id,
    tid: trail.tid,
    owner: trail.owner,
    state: currentState(trail.entries, newest ? latestOf(newest) : null),
    createdAt: trail.createdAt,
    ownTime: trail.now,
    aheadMs: trail.aheadMs,
    audit: trail.entries,
    events,
    calls,
    latest: newest ? JSON.parse(newest.body).data?.object ?? null : null
  };
}
__name(recordView, "recordView");
function describeOf(env, kind, id) {
  return receiptStub(env, kind, id).describe();
}
__name(describeOf, "describeOf");
function latestOf(row) {
  const state = JSON.parse(row.body).data?.object?.state;
  return { created: row.created, state: typeof state === "number" ? state : null };
}
__name(latestOf, "latestOf");
async function latestEventsOf(env, records) {
  return new Map((await withBodies(env, await newestEvents(env, records))).map((row) => [`${row.kind}:${row.record_id}`, latestOf(row)]));
}
__name(latestEventsOf, "latestEventsOf");

// ../../../work/main/node_modules/hono/dist/helper/html/index.js
var html = /* @__PURE__ */ __name((strings, ...values) => {
  const buffer = [""];
  for (let i = 0, len = strings.length - 1; i < len; i++) {
    buffer[0] += strings[i];
    const children = Array.isArray(values[i]) ? values[i].flat(Infinity) : [values[i]];
    for (let i2 = 0, len2 = children.length; i2 < len2; i2++) {
      const child = children[i2];
      if (typeof child === "string") escapeToBuffer(child, buffer);
      else if (typeof child === "number") buffer[0] += child;
      else if (typeof child === "boolean" || child === null || child === void 0) continue;
      else if (typeof child === "object" && child.isEscaped) {
        if (child.callbacks) buffer.unshift("", child);
        else {
          const tmp = child.toString();
          if (tmp instanceof Promise) buffer.unshift("", tmp);
          else buffer[0] += tmp;
        }
      } else if (child instanceof Promise) buffer.unshift("", child);
      else escapeToBuffer(child.toString(), buffer);
    }
  }
  buffer[0] += strings.at(-1);
  return buffer.length === 1 ? "callbacks" in buffer ? raw(resolveCallbackSync(raw(buffer[0], buffer.callbacks))) : raw(buffer[0]) : stringBufferToString(buffer, buffer.callbacks);
}, "html");

// src/rules/lifecycle.ts
var isPaid = /* @__PURE__ */ __name((state) => state === STATE.paid || state === STATE.held || state === STATE.awaitingSupplier, "isPaid");
var MAX_GUESSES = 3;
var GUESS_LIMIT_WORD = ["No", "One", "Two", "Three", "Four", "Five"][MAX_GUESSES] ?? String(MAX_GUESSES);
var MAX_OTP_SENDS = 5;
function phaseOf(facts) {
  if (facts.pending) return "in_flight";
  if (facts.guesses >= MAX_GUESSES) return "exhausted";
  if (facts.expired && facts.state !== STATE.paid && facts.state !== STATE.awaitingSupplier) return "expired";
  switch (facts.state) {
    case STATE.created:
      return "created";
    case STATE.paid:
      return "paid";
    case STATE.held:
      return "held";
    case STATE.cancelled:
      return "cancelled";
    case STATE.awaitingSupplier:
      return "awaiting_supplier";
  }
}
__name(phaseOf, "phaseOf");
var CALL = { do: "call" };
var ASK_FIRST = { do: "ask-upstream-first" };
var refuse = /* @__PURE__ */ __name((code, message2) => ({ do: "refuse", code, message: message2 }), "refuse");
var nounOf = /* @__PURE__ */ __name((kind) => KINDS[kind].noun, "nounOf");
var plural = /* @__PURE__ */ __name((kind) => `${nounOf(kind)[0].toUpperCase()}${nounOf(kind).slice(1)}s`, "plural");
var EXHAUSTED = /* @__PURE__ */ __name((ctx) => refuse("otp_attempts_exhausted", exhaustedMessage(ctx.kind, ctx.guesses, ctx.closedAtEdge)), "EXHAUSTED");
var OTP_REQUIRED = /* @__PURE__ */ __name((ctx) => refuse(
  "otp_required",
  KINDS[ctx.kind].authorizes ? `This payment needs the OTP sent to the card owner (authorize first).` : `This ${nounOf(ctx.kind)} needs the OTP sent to the sender.`
), "OTP_REQUIRED");
var EXPIRED = /* @__PURE__ */ __name((ctx) => refuse(
  "receipt_expired",
  `The ${nounOf(ctx.kind)} expired unpaid and is ${ctx.closedAtEdge ? "closed at the gateway" : "cancelled"}; create a new one.`
), "EXPIRED");
var CANCELLED_MESSAGE = /* @__PURE__ */ __name((ctx) => `The ${nounOf(ctx.kind)} is cancelled; create a new one.`, "CANCELLED_MESSAGE");
var PAID_MESSAGE = /* @__PURE__ */ __name((ctx, phase) => `The ${nounOf(ctx.kind)} is already paid (${phase === "held" ? "the amount is held" : phase === "awaiting_supplier" ? "awaiting the supplier" : "paid"}).`, "PAID_MESSAGE");
var STALE = [
  { phases: ["in_flight", "awaiting_supplier"], when: /* @__PURE__ */ __name((ctx) => !ctx.fresh, "when"), then: ASK_FIRST },
  { when: /* @__PURE__ */ __name((ctx) => ctx.suspect && !ctx.fresh, "when"), then: ASK_FIRST }
];
var PAYABLE = [
  ...STALE,
  { phases: ["exhausted"], then: EXHAUSTED },
  { phases: ["expired"], then: EXPIRED },
  { phases: ["cancelled"], then: /* @__PURE__ */ __name((ctx) => refuse("receipt_cancelled", CANCELLED_MESSAGE(ctx)), "then") },
  { phases: ["paid", "held", "awaiting_supplier"], then: /* @__PURE__ */ __name((ctx, phase) => refuse("receipt_already_paid", PAID_MESSAGE(ctx, phase)), "then") }
];
var LIFECYCLE = {
  authorize: [
    { when: /* @__PURE__ */ __name((ctx) => !KINDS[ctx.kind].authorizes, "when"), then: /* @__PURE__ */ __name((ctx) => refuse("invalid_request", `${plural(ctx.kind)} have no authorize step.`), "then") },
    ...PAYABLE,
    { phases: ["created"], then: CALL }
  ],
  pay: [
    ...PAYABLE,
    // Rule 2: no OTP, no guess: refused before anything leaves, and never counted.
    { phases: ["created"], when: /* @__PURE__ */ __name((ctx) => ctx.otpMissing, "when"), then: OTP_REQUIRED },
    { phases: ["created"], then: CALL }
  ],
  "hold-confirm": [
    { when: /* @__PURE__ */ __name((ctx) => ctx.caller !== "partner", "when"), then: refuse("forbidden", "hold-confirm is for the partner backend only.") },
    { when: /* @__PURE__ */ __name((ctx) => !ctx.holdEnabled, "when"), then: refuse("hold_not_enabled", "The hold function is not enabled in this deployment.") },
    { when: /* @__PURE__ */ __name((ctx) => !KINDS[ctx.kind].holds || !ctx.isHold, "when"), then: refuse("receipt_not_held", "This receipt was not created with is_hold.") },
    ...STALE,
    { phases: ["held"], then: CALL },
    { phases: ["exhausted"], then: EXHAUSTED },
    { phases: ["expired"], then: EXPIRED },
    { phases: ["cancelled"], then: refuse("receipt_cancelled", "The receipt is cancelled.") },
    { phases: ["paid"], then: refuse("receipt_already_paid", "The hold on this receipt is already confirmed.") },
    { phases: ["created", "awaiting_supplier"], then: refuse("receipt_not_held", "Nothing is held on this receipt yet: pay it first.") }
  ],
  cancel: [
    { when: /* @__PURE__ */ __name((ctx) => !KINDS[ctx.kind].cancellable, "when"), then: /* @__PURE__ */ __name((ctx) => refuse("cancel_not_allowed", `${plural(ctx.kind)} cannot be cancelled.`), "then") },
    ...STALE,
    { phases: ["expired"], then: EXPIRED },
    { phases: ["cancelled", "exhausted"], then: refuse("cancel_not_allowed", "The receipt is already cancelled.") },
    // Rule 8: a user's cancel is never decided from a stored copy (a late pay may have landed since).
    { when: /* @__PURE__ */ __name((ctx) => ctx.caller === "user" && !ctx.fresh, "when"), then: ASK_FIRST },
    { phases: ["awaiting_supplier"], then: refuse("cancel_not_allowed", "A receipt awaiting the supplier's answer (state 57) cannot be cancelled.") },
    { when: /* @__PURE__ */ __name((ctx) => ctx.qrMerchant, "when"), then: refuse("cancel_not_allowed", "Receipts of QR merchants cannot be cancelled.") },
    // Rule 12: a hold nobody confirmed in time is released by the gateway's cancel (no money was taken: no refund).
    { phases: ["held"], when: /* @__PURE__ */ __name((ctx) => ctx.caller === "gateway" && ctx.expiring === "hold_expired", "when"), then: CALL },
    {
      phases: ["held", "paid"],
      when: /* @__PURE__ */ __name((ctx) => ctx.caller !== "partner", "when"),
      then: refuse("forbidden", "Only the partner backend may cancel a paid or held receipt.")
    },
    { phases: ["created", "held", "paid"], then: CALL }
  ]
};
var upstreamPhase = /* @__PURE__ */ __name((state) => phaseOf({ state, pending: false, guesses: 0 }), "upstreamPhase");
function decide(operation2, phase, ctx) {
  for (const row of LIFECYCLE[operation2]) {
    if (row.phases && !row.phases.includes(phase)) continue;
    if (row.when && !row.when(ctx)) continue;
    return typeof row.then === "function" ? row.then(ctx, phase) : row.then;
  }
  return refuse("operation_in_progress", `The outcome of an earlier call on this ${nounOf(ctx.kind)} is not known yet; retry shortly.`);
}
__name(decide, "decide");
var asksForLook = /* @__PURE__ */ __name((operation2, phase, ctx) => decide(operation2, phase, { ...ctx, fresh: false }).do === "ask-upstream-first", "asksForLook");
var guessesOf = /* @__PURE__ */ __name((counts) => counts.wrong + counts.unconfirmed, "guessesOf");
function otpToSend(needed, otp) {
  if (!needed) return void 0;
  return otp === void 0 ? false : otp;
}
__name(otpToSend, "otpToSend");
function otpVerdictOf(answer) {
  if (answer.ok) return "accepted";
  if (answer.outcome === "unknown") return null;
  if (answer.code === "otp_invalid" || answer.code === "otp_attempts_exhausted") return "wrong";
  if (answer.code === "upstream_refused") return "unconfirmed";
  return answer.judged ? "accepted" : "not_judged";
}
__name(otpVerdictOf, "otpVerdictOf");
function countGuess(counts, verdict) {
  if (verdict === "wrong") return { ...counts, wrong: counts.wrong + 1 };
  if (verdict === "unconfirmed") return { ...counts, unconfirmed: counts.unconfirmed + 1 };
  return counts;
}
__name(countGuess, "countGuess");
function exhaustedMessage(kind, counts, closedAtEdge2 = !KINDS[kind].cancellable) {
  const noun = nounOf(kind);
  const ending = closedAtEdge2 ? `the ${noun} is closed at the gateway and takes no further code` : `the ${noun} is closed and takes no further code; the gateway cancels it with the payment service`;
  if (counts.unconfirmed === 0) return `${GUESS_LIMIT_WORD} wrong OTPs: ${ending}. Create a new ${noun}.`;
  const parts2 = [
    counts.wrong > 0 ? `${counts.wrong} wrong` : null,
    `${counts.unconfirmed} whose answer was lost (counted as guesses, since the payment service may have judged them)`
  ].filter(Boolean);
  return `${GUESS_LIMIT_WORD} OTP guesses failed (${parts2.join(", ")}): ${ending}. Create a new ${noun}.`;
}
__name(exhaustedMessage, "exhaustedMessage");
function eventForStateChange(kind, from, to) {
  if (from === to) return null;
  const onState = KINDS[kind].events.onState;
  return onState[to] ?? null;
}
__name(eventForStateChange, "eventForStateChange");
var createdEvent = /* @__PURE__ */ __name((kind) => KINDS[kind].events.created, "createdEvent");
var exhaustedEvent = /* @__PURE__ */ __name((kind) => KINDS[kind].events.exhausted, "exhaustedEvent");
var upstreamCancels = /* @__PURE__ */ __name((facts) => KINDS[facts.kind].cancellable && !facts.qrMerchant && !facts.cancelRefused, "upstreamCancels");
var closedAtEdge = /* @__PURE__ */ __name((facts) => (facts.guesses >= MAX_GUESSES || facts.expired === true) && !facts.upstreamCancels, "closedAtEdge");
function exhaustionCancelPending(facts) {
  if (facts.suspect) return false;
  return facts.guesses >= MAX_GUESSES && facts.upstreamCancels && facts.state === STATE.created;
}
__name(exhaustionCancelPending, "exhaustionCancelPending");
var EXPIRY = {
  receipt: {
    [STATE.created]: { window: "unpaidMs", from: "created", reason: "expired", ends: "cancel" },
    [STATE.held]: { window: "heldMs", from: "held", reason: "hold_expired", ends: "cancel" }
  },
  transfer: {
    [STATE.created]: { window: "unpaidMs", from: "created", reason: "expired", ends: "edge" }
  }
};
var expiryRuleOf = /* @__PURE__ */ __name((kind, state) => EXPIRY[kind][state] ?? null, "expiryRuleOf");
var upstreamBusy = /* @__PURE__ */ __name((code) => code === "upstream_unavailable" || code === "rate_limited", "upstreamBusy");
function expiresAt(facts, windows) {
  const rule = expiryRuleOf(facts.kind, facts.state);
  if (!rule || facts.edgeClosed) return null;
  if (facts.expiry !== null) return facts.phase === "expired" ? 0 : null;
  if (facts.phase !== "created" && facts.phase !== "held") return null;
  if (facts.suspect) return null;
  return (rule.from === "held" ? facts.heldAt : facts.createdAt) + windows[rule.window];
}
__name(expiresAt, "expiresAt");
var gatewayCause = /* @__PURE__ */ __name((facts, state) => {
  if (state !== STATE.cancelled) return null;
  const acted = facts.expiry === null ? null : expiryRuleOf(facts.kind, facts.state)?.reason ?? null;
  if (acted !== null) return { reason: acted };
  return guessesOf({ wrong: facts.wrong_otps, unconfirmed: facts.unconfirmed_otps }) >= MAX_GUESSES ? { reason: "otp_attempts_exhausted" } : null;
}, "gatewayCause");
var isFiscalPending = /* @__PURE__ */ __name((phase) => phase === "sale_pending" || phase === "refund_pending", "isFiscalPending");
var fiscalEventsOf = /* @__PURE__ */ __name((kind) => {
  const events = KINDS[kind].events;
  return "fiscal" in events ? events.fiscal : null;
}, "fiscalEventsOf");
var isObject = /* @__PURE__ */ __name((value) => typeof value === "object" && value !== null && !Array.isArray(value), "isObject");
var filled = /* @__PURE__ */ __name((value) => typeof value === "string" && value.trim() !== "", "filled");
var fiscalShown = /* @__PURE__ */ __name((ofd) => isObject(ofd) && filled(ofd.fiscalSign) && filled(ofd.qrCodeUrl), "fiscalShown");
var refundShown = /* @__PURE__ */ __name((ofd) => fiscalShown(ofd) && ofd.type !== "Sale", "refundShown");
function fiscalPhaseOf(facts) {
  const { kind, state, ofd, before } = facts;
  if (!fiscalEventsOf(kind)) return null;
  if (state === STATE.paid) {
    if (before === "sale") return "sale";
    if (!isObject(ofd)) return before === "sale_pending" ? before : null;
    return fiscalShown(ofd) ? "sale" : "sale_pending";
  }
  if (state === STATE.cancelled) {
    if (before === "refund") return "refund";
    const sold = before !== null || isObject(ofd);
    if (!sold) return null;
    return refundShown(ofd) ? "refund" : "refund_pending";
  }
  return before;
}
__name(fiscalPhaseOf, "fiscalPhaseOf");
function fiscalEventOf(kind, before, after) {
  const events = fiscalEventsOf(kind);
  if (!events) return null;
  if (before === "sale_pending" && after === "sale") return events.sale;
  if (before === "refund_pending" && after === "refund") return events.refund;
  return null;
}
__name(fiscalEventOf, "fiscalEventOf");
function otpSendRefusal(facts, now) {
  if (facts.sends >= MAX_OTP_SENDS) {
    return {
      code: "rate_limited",
      message: `At most ${MAX_OTP_SENDS} OTPs are sent for one receipt; create a new receipt.`,
      retryAfterSeconds: 3600
    };
  }
  const waitLeft = facts.lastSentAt + facts.waitMs - now;
  if (waitLeft > 0) {
    return {
      code: "otp_resend_too_soon",
      message: "An OTP was sent moments ago; wait before asking for another.",
      retryAfterSeconds: waitLeft / 1e3
    };
  }
  return null;
}
__name(otpSendRefusal, "otpSendRefusal");
var isFinal = /* @__PURE__ */ __name((facts) => facts.edgeClosed || facts.state === STATE.paid || facts.state === STATE.cancelled, "isFinal");
var KEYED_OPERATIONS = ["authorize", "pay", "hold-confirm", "cancel"];
function keepsAnswer(status, code) {
  if (code === "operation_in_progress" || code === "idempotency_key_reused") return false;
  return status === 200 || status === 402 || status === 404 || status === 409 || status === 422;
}
__name(keepsAnswer, "keepsAnswer");
function repeatAnswer(operation2, phase) {
  switch (operation2) {
    case "authorize":
      return "unknown_send";
    case "pay":
      return phase === "paid" || phase === "held" || phase === "awaiting_supplier" ? "done" : "not_done";
    case "hold-confirm":
      return phase === "paid" ? "done" : "not_done";
    case "cancel":
      return phase === "cancelled" ? "done" : "not_done";
  }
}
__name(repeatAnswer, "repeatAnswer");

// src/console/html.ts
var CONSOLE_PATH = "/__sandbox/";
var STATE_NAMES = {
  [STATE.created]: "created",
  [STATE.paid]: "paid",
  [STATE.held]: "held",
  [STATE.cancelled]: "cancelled",
  [STATE.awaitingSupplier]: "awaiting supplier"
};
var KIND_SEGMENTS = { receipt: "receipts", transfer: "a2c" };
var recordPath = /* @__PURE__ */ __name((kind, id) => `${CONSOLE_PATH}${KIND_SEGMENTS[kind]}/${encodeURIComponent(id)}/view`, "recordPath");
var resendPath = /* @__PURE__ */ __name((eventId) => `${CONSOLE_PATH}events/${encodeURIComponent(eventId)}/resend`, "resendPath");
var STYLE = `
  :root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --ok: #15803d; --warn: #b45309; --bad: #b91c1c; }
  body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 80rem; padding: 0 1rem; }
  header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
  header h1 { font-size: 1.25rem; margin: .5rem 0; }
  header nav a { margin-right: .75rem; }
  .muted, small { color: var(--muted); }
  table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; white-space: nowrap; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
  pre { background: rgba(127,127,127,.1); padding: .75rem; overflow: auto; max-height: 30rem; }
  .tag { display: inline-block; padding: 0 .4rem; border-radius: .6rem; font-size: 12px; border: 1px solid currentColor; }
  .s-paid, .d-delivered, .ok { color: var(--ok); } .s-cancelled, .d-failed, .bad { color: var(--bad); }
  .s-awaiting-supplier, .s-held, .d-pending, .s-unsettled { color: var(--warn); }
  .s-ahead { color: #7c3aed; }
  .src-call { color: #2563eb; } .src-event { color: #7c3aed; } .src-audit { color: #0f766e; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; }
  .notice { border: 1px solid var(--ok); padding: .5rem .75rem; margin: 1rem 0; }
  .empty { padding: 1rem; border: 1px dashed var(--line); }
  form.inline { display: inline; margin: 0; }
  button { font: inherit; cursor: pointer; }
`;
function page(title2, body) {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title2} · sandbox console</title>
    <link rel="icon" href="data:," />
    <style>${raw(STYLE)}</style>
  </head>
  <body>
    <header>
      <h1>Sandbox console</h1>
      <span class="muted">local development only: the gateway's records, as it stores them</span>
      <nav><a href="${CONSOLE_PATH}">Latest records</a><a href="/__sandbox/calls">Upstream calls (JSON)</a><a href="/docs">API reference</a></nav>
    </header>
    ${body}
  </body>
</html>`;
}
__name(page, "page");
function stateName(state) {
  if (state === null) return "unknown";
  return STATE_NAMES[state] ?? "unknown";
}
__name(stateName, "stateName");
function stateTag(state) {
  const name = stateName(state);
  return html`<span class="tag s-${name.replace(/ /g, "-")}">${state ?? "?"} ${name}</span>`;
}
__name(stateTag, "stateTag");
function age(since, now) {
  const s = Math.max(0, Math.floor((now - since) / 1e3));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}
__name(age, "age");
var time = /* @__PURE__ */ __name((ms) => ms === null ? "" : new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC"), "time");
function amount(tiyin) {
  if (tiyin === null) return html`<span class="muted">—</span>`;
  const sum = (tiyin / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return html`${sum} <small>sum (${tiyin} tiyin)</small>`;
}
__name(amount, "amount");
function ahead(ms) {
  if (ms === null) return html`<span class="muted">—</span>`;
  return ms === 0 ? html`<span class="muted">now</span>` : html`<span class="tag s-ahead">+${age(0, ms)}</span>`;
}
__name(ahead, "ahead");
function clockControls(view) {
  const base = `/__sandbox/${KIND_SEGMENTS[view.kind]}/${encodeURIComponent(view.id)}`;
  const triggers = ["pay_late", "supplier_confirms", "supplier_fails", "fiscal_data_appears", "refund_fiscal_data_appears"];
  return html`<form method="post" action="${base}/advance" class="inline">
      <label>advance by <input name="by" value="25h" size="6" pattern="[1-9][0-9]{0,5}[smhd]" title="90s, 10m, 25h, 8d" required /></label>
      <button type="submit">Advance</button>
    </form>
    ${view.kind === "receipt" ? html`<form method="post" action="${base}/trigger" class="inline">
            <label>the upstream now <select name="what">${triggers.map((what) => html`<option value="${what}">${what}</option>`)}</select></label>
            <button type="submit">Trigger</button>
          </form>` : ""}`;
}
__name(clockControls, "clockControls");
function listPage(records, now, limit) {
  const body = records.length === 0 ? html`<p class="empty">No receipts yet — run the README's walk-through ("A payment, step by step") against this gateway, then reload.</p>` : html`<table>
          <thead><tr><th>id</th><th>kind</th><th>owner</th><th>tid</th><th>state</th><th class="num">amount</th><th class="num">age</th><th class="num">own time</th></tr></thead>
          <tbody>
            ${records.map(
    (r) => html`<tr>
                <td class="mono">${r.id === null ? html`<span class="muted">create not settled</span>` : html`<a href="${recordPath(r.kind, r.id)}">${r.id}</a>`}</td>
                <td>${r.kind}</td>
                <td>${r.owner}</td>
                <td class="mono">${r.tid}</td>
                <td>${r.id === null ? html`<span class="tag s-unsettled">pending</span>` : stateTag(r.state)}</td>
                <td class="num">${amount(r.amount)}</td>
                <td class="num" title="${time(r.createdAt)}">${age(r.createdAt, now)}</td>
                <td class="num">${ahead(r.aheadMs)}</td>
              </tr>`
  )}
          </tbody>
        </table>`;
  return page(
    "Latest records",
    html`<h2>Latest receipts and transfers</h2>
      <p class="muted">The ${limit} newest created through this gateway, newest first. Owner and tid from the tid index; state is the one the gateway last recorded (its audit trail, or a newer event). Reload to refresh.</p>
      ${body}`
  );
}
__name(listPage, "listPage");
function timeline(view) {
  const entries = [
    ...view.calls.map((call) => ({
      at: call.at,
      rank: 0,
      source: "call",
      what: html`<code>POST ${call.path}</code>`,
      detail: html`${callOutcome(call)}${call.otp ? html` <small>(with an OTP)</small>` : ""} <small class="mono">${call.request_id ?? ""}</small>`
    })),
    ...view.events.map((event) => ({
      at: event.created,
      rank: 1,
      source: "event",
      what: html`event <code>${event.type}</code> #${event.sequence}`,
      detail: html`${deliveryTag(event)} <small class="mono">${event.id}</small>`
    })),
    ...view.audit.map((entry) => ({
      at: entry.at,
      rank: 2,
      source: "audit",
      what: html`<code>${entry.op}</code> by ${entry.actor}`,
      detail: html`${auditOutcome(entry)} → ${stateTag(entry.state)} <small class="mono">${entry.request_id}</small>`
    }))
  ];
  return entries.sort((a, b) => a.at - b.at || a.rank - b.rank);
}
__name(timeline, "timeline");
function callOutcome(call) {
  return html`<span class="${call.status < 300 ? "ok" : "bad"}">${call.status}${call.code ? ` ${call.code}` : ""}</span>`;
}
__name(callOutcome, "callOutcome");
function auditOutcome(entry) {
  return html`<span class="${entry.outcome === "ok" ? "ok" : "bad"}">${entry.outcome}</span>`;
}
__name(auditOutcome, "auditOutcome");
function deliveryTag(event) {
  return html`<span class="tag d-${event.delivery_status}">${event.delivery_status}</span> <small>${event.attempts} attempt${event.attempts === 1 ? "" : "s"}</small>`;
}
__name(deliveryTag, "deliveryTag");
function recordPage(view, now, resent) {
  const noun = view.kind === "receipt" ? "Receipt" : "Transfer";
  const entries = timeline(view);
  const start = entries[0]?.at ?? 0;
  const resentEvent = resent ? view.events.find((event) => event.id === resent) : void 0;
  return page(
    `${noun} ${view.id}`,
    html`<h2>${noun} <span class="mono">${view.id}</span> ${stateTag(view.state)}</h2>
      ${resentEvent ? html`<p class="notice" role="status">Event <code>${resentEvent.id}</code> (${resentEvent.type}) is queued for delivery again.</p>` : ""}
      <dl>
        <dt>kind</dt><dd>${view.kind}</dd>
        <dt>owner</dt><dd>${view.owner}</dd>
        <dt>tid</dt><dd class="mono">${view.tid ?? html`<span class="muted">not in the tid index</span>`}</dd>
        <dt>state</dt><dd>${stateTag(view.state)}</dd>
        <dt>created</dt><dd>${view.createdAt === null ? "" : html`${time(view.createdAt)} <small>(${age(view.createdAt, now)} ago)</small>`}</dd>
        <dt id="clock">own time</dt><dd>${time(view.ownTime)} ${ahead(view.aheadMs)} <small>(the test clock: docs/testing-your-app.md)</small><br />${clockControls(view)}</dd>
        <dt>the sandbox's view</dt><dd><a href="/__sandbox/${KIND_SEGMENTS[view.kind]}/${encodeURIComponent(view.id)}">JSON</a></dd>
      </dl>

      <h3 id="timeline">Timeline</h3>
      <p class="muted">Upstream calls (the sandbox's call log), events (the event log) and the audit trail (the record's Durable Object), in time order.</p>
      <table>
        <thead><tr><th>time</th><th class="num">+s</th><th>source</th><th>what</th><th>outcome</th></tr></thead>
        <tbody>
          ${entries.map(
      (entry) => html`<tr class="timeline-${entry.source}">
              <td class="mono">${time(entry.at)}</td>
              <td class="num">${((entry.at - start) / 1e3).toFixed(3)}</td>
              <td class="src-${entry.source}">${entry.source === "call" ? "upstream" : entry.source}</td>
              <td>${entry.what}</td>
              <td>${entry.detail}</td>
            </tr>`
    )}
        </tbody>
      </table>

      <h3 id="events">Events</h3>
      ${eventsTable(view.events)}

      <h3 id="calls">Upstream calls</h3>
      ${callsTable(view.calls)}

      <h3 id="audit">Audit trail</h3>
      ${auditTable(view.audit)}

      <h3 id="record">The record, as the API last answered it</h3>
      ${view.latest === null ? html`<p class="empty">Not known yet: it comes with the record's newest logged event.</p>` : html`<pre>${JSON.stringify(view.latest, null, 2)}</pre>`}`
  );
}
__name(recordPage, "recordPage");
function eventsTable(events) {
  if (events.length === 0) {
    return html`<p class="empty">No events in the event log yet: the receipt logs each one moments after it happened. Reload in a moment.</p>`;
  }
  return html`<table>
    <thead><tr><th>#</th><th>type</th><th>id</th><th>created</th><th>delivery</th><th class="num">attempts</th><th>last answer</th><th>delivered</th><th></th></tr></thead>
    <tbody>
      ${events.map(
    (event) => html`<tr>
          <td class="num">${event.sequence}</td>
          <td><code>${event.type}</code></td>
          <td class="mono">${event.id}</td>
          <td class="mono">${time(event.created)}</td>
          <td><span class="tag d-${event.delivery_status}">${event.delivery_status}</span></td>
          <td class="num">${event.attempts}</td>
          <td>${event.last_status ?? ""}${event.last_error ? html` <small>${event.last_error}</small>` : ""}</td>
          <td class="mono">${time(event.delivered_at)}</td>
          <td><form class="inline" method="post" action="${resendPath(event.id)}"><button type="submit">Resend</button></form></td>
        </tr>`
  )}
    </tbody>
  </table>`;
}
__name(eventsTable, "eventsTable");
function callsTable(calls) {
  if (calls.length === 0) return html`<p class="empty">No upstream call names this record.</p>`;
  return html`<table>
    <thead><tr><th>#</th><th>time</th><th>call</th><th>answer</th><th>OTP</th><th>request id</th></tr></thead>
    <tbody>
      ${calls.map(
    (call) => html`<tr>
          <td class="num">${call.seq}</td>
          <td class="mono">${time(call.at)}</td>
          <td><code>POST ${call.path}</code></td>
          <td>${callOutcome(call)}</td>
          <td>${call.otp ? "sent" : ""}</td>
          <td class="mono">${call.request_id ?? ""}</td>
        </tr>`
  )}
    </tbody>
  </table>`;
}
__name(callsTable, "callsTable");
function auditTable(audit2) {
  return html`<table>
    <thead><tr><th>time</th><th>operation</th><th>actor</th><th>outcome</th><th>state after</th><th>request id</th></tr></thead>
    <tbody>
      ${audit2.map(
    (entry) => html`<tr>
          <td class="mono">${time(entry.at)}</td>
          <td><code>${entry.op}</code></td>
          <td>${entry.actor}</td>
          <td>${auditOutcome(entry)}</td>
          <td>${stateTag(entry.state)}</td>
          <td class="mono">${entry.request_id}</td>
        </tr>`
  )}
    </tbody>
  </table>`;
}
__name(auditTable, "auditTable");
function problemPage(title2, message2) {
  return page(title2, html`<h2>${title2}</h2><p>${message2}</p><p><a href="${CONSOLE_PATH}">Back to the latest records</a></p>`);
}
__name(problemPage, "problemPage");

// src/console/routes.ts
var pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"]
  },
  // Served over plain http on a developer's machine.
  strictTransportSecurity: false
});
var noStore = createMiddleware(async (c, next) => {
  await next();
  c.header("Cache-Control", "no-store");
});
var sandboxConsole = new Hono3();
sandboxConsole.onError((err, c) => {
  if (err instanceof HTTPException && err.status === 403) {
    c.status(403);
    return c.html(problemPage("Refused", "This form may only be sent from the console's own pages."));
  }
  if (err instanceof ApiError && err.code === "not_found") {
    c.status(404);
    return c.html(problemPage("Not found", err.message));
  }
  log("error", "sandbox_console_failed", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  c.status(err instanceof ApiError ? err.status : 500);
  return c.html(problemPage("The console failed", "See the gateway's log (wrangler dev's output) for why."));
});
sandboxConsole.get("/__sandbox/", pageHeaders, noStore, async (c) => {
  return c.html(listPage(await latestRecords(c.env), clock.now(), LATEST_RECORDS));
});
var showRecord = /* @__PURE__ */ __name((kind) => sandboxConsole.get(`/__sandbox/${KIND_SEGMENTS[kind]}/:id/view`, pageHeaders, noStore, async (c) => {
  const id = c.req.param("id");
  const view = await recordView(c.env, kind, id);
  if (!view) {
    c.status(404);
    return c.html(problemPage("Not found", `The gateway holds no ${kind} with the id ${JSON.stringify(id)}.`));
  }
  return c.html(recordPage(view, clock.now(), c.req.query("resent")));
}), "showRecord");
showRecord("receipt");
showRecord("transfer");
sandboxConsole.post("/__sandbox/events/:id/resend", pageHeaders, csrf(), async (c) => {
  const event = await resendEvent(c.env, c.req.param("id"));
  return c.redirect(`${recordPath(kindOfEvent(event.type), recordIdOf(event))}?resent=${encodeURIComponent(event.id)}#events`, 303);
});

// ../../../work/main/node_modules/hono/dist/middleware/request-id/request-id.js
var requestId = /* @__PURE__ */ __name(({ limitLength = 255, headerName = "X-Request-Id", generator = /* @__PURE__ */ __name(() => crypto.randomUUID(), "generator") } = {}) => {
  return /* @__PURE__ */ __name(async function requestId2(c, next) {
    let reqId = headerName ? c.req.header(headerName) : void 0;
    if (!reqId || reqId.length > limitLength || /[^\w\-=]/.test(reqId)) reqId = generator(c);
    c.set("requestId", reqId);
    if (headerName) c.header(headerName, reqId);
    await next();
  }, "requestId");
}, "requestId");

// src/sandbox/catalog.ts
var CORRECT_OTP = "111111";
var MAX_WRONG_OTPS = 3;
var A2C_VERIFY_FROM = 1e6;
var merchants = [
  {
    merchant_id: 1001,
    merchant_name: "Sandbox Mobile",
    category_id: 1,
    category_name: "Mobile operators",
    logo_url: "https://sandbox.upstream.invalid/logos/1001.png",
    min_amount: 1e5,
    max_amount: 5e8,
    is_verify: true,
    kind: "regular",
    commission_percent: 0,
    tin: "301234567",
    address: "Tashkent, Amir Temur 1",
    spic: "10305001001000000",
    package_code: "1495381"
  },
  {
    merchant_id: 1002,
    merchant_name: "Sandbox QR Cafe",
    category_id: 7,
    category_name: "Cafes and restaurants",
    logo_url: "https://sandbox.upstream.invalid/logos/1002.png",
    min_amount: 1e3,
    max_amount: 1e8,
    is_verify: false,
    kind: "qr",
    commission_percent: 0,
    tin: "302345678",
    address: "Tashkent, Navoi 12",
    spic: "10101001001000000",
    package_code: "1512442"
  },
  {
    merchant_id: 1003,
    merchant_name: "Sandbox Utilities",
    category_id: 3,
    category_name: "Utilities",
    logo_url: null,
    min_amount: 1e3,
    max_amount: 1e9,
    is_verify: false,
    kind: "regular",
    commission_percent: 1,
    tin: "303456789",
    address: "Tashkent, Shota Rustaveli 5",
    spic: "10399001001000000",
    package_code: "1543001"
  }
];
function findMerchant(id) {
  return merchants.find((m) => m.merchant_id === id);
}
__name(findMerchant, "findMerchant");
var rates = [
  { rate_id: 1, percent: 0.5, flat: 0 },
  { rate_id: 2, percent: 1, flat: 0 },
  { rate_id: 3, percent: 0, flat: 1e3 }
];
function findRate(id) {
  return rates.find((r) => r.rate_id === id);
}
__name(findRate, "findRate");
function commissionOf2(amount2, percent, flat = 0) {
  return Math.ceil(amount2 * percent / 100) + flat;
}
__name(commissionOf2, "commissionOf");
var tokenCards = {
  tok_sandbox_ok: { behaviour: "ok", masked_pan: "860049******0011", phone: "+998 90 *** ** 67", holder_name: "SANDBOX OK" },
  tok_sandbox_insufficient: {
    behaviour: "insufficient",
    masked_pan: "860049******0029",
    phone: "+998 90 *** ** 68",
    holder_name: "SANDBOX INSUFFICIENT"
  },
  tok_sandbox_supplier_pending: {
    behaviour: "supplier_pending",
    masked_pan: "860049******0037",
    phone: "+998 90 *** ** 69",
    holder_name: "SANDBOX PENDING"
  },
  tok_sandbox_timeout: { behaviour: "timeout", masked_pan: "860049******0045", phone: "+998 90 *** ** 70", holder_name: "SANDBOX TIMEOUT" },
  tok_sandbox_error: { behaviour: "error", masked_pan: "860049******0052", phone: "+998 90 *** ** 71", holder_name: "SANDBOX ERROR" },
  tok_sandbox_paid_timeout: {
    behaviour: "paid_timeout",
    masked_pan: "860049******0060",
    phone: "+998 90 *** ** 72",
    holder_name: "SANDBOX PAID TIMEOUT"
  },
  tok_sandbox_busy: { behaviour: "busy", masked_pan: "860049******0078", phone: "+998 90 *** ** 73", holder_name: "SANDBOX BUSY" },
  tok_sandbox_supplier_fails: {
    behaviour: "supplier_fails",
    masked_pan: "860049******0086",
    phone: "+998 90 *** ** 74",
    holder_name: "SANDBOX SUPPLIER FAILS"
  },
  tok_sandbox_pays_late: { behaviour: "pays_late", masked_pan: "860049******0094", phone: "+998 90 *** ** 75", holder_name: "SANDBOX PAYS LATE" },
  tok_sandbox_judges_unknown: {
    behaviour: "judges_unknown",
    masked_pan: "860049******0102",
    phone: "+998 90 *** ** 76",
    holder_name: "SANDBOX JUDGES UNKNOWN"
  },
  tok_sandbox_fiscal_late: {
    behaviour: "fiscal_late",
    masked_pan: "860049******0110",
    phone: "+998 90 *** ** 77",
    holder_name: "SANDBOX FISCAL LATE"
  }
};
var numberBehaviours = {
  "8600000000000007": "ok",
  "9860000000000018": "ok",
  "8600000000000015": "insufficient"
};
var UNAVAILABLE_RECEIVER = "8600000000000098";
function maskPan2(pan) {
  return `${pan.slice(0, 6)}******${pan.slice(-4)}`;
}
__name(maskPan2, "maskPan");
function cardByToken(token) {
  return Object.hasOwn(tokenCards, token) ? tokenCards[token] : void 0;
}
__name(cardByToken, "cardByToken");
function tokenOfBehaviour(behaviour) {
  return `tok_sandbox_${behaviour}`;
}
__name(tokenOfBehaviour, "tokenOfBehaviour");
function isExpired(expire, now) {
  const year = 2e3 + Number(expire.slice(0, 2));
  const month = Number(expire.slice(2, 4));
  if (month < 1 || month > 12) return true;
  return year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}
__name(isExpired, "isExpired");
function cardByNumber(number2, expire, now = /* @__PURE__ */ new Date()) {
  const behaviour = Object.hasOwn(numberBehaviours, number2) ? numberBehaviours[number2] : void 0;
  if (!behaviour || isExpired(expire, now)) return void 0;
  return { behaviour, masked_pan: maskPan2(number2), phone: `+998 93 *** ** ${number2.slice(-2)}`, holder_name: "SANDBOX CARDHOLDER" };
}
__name(cardByNumber, "cardByNumber");

// src/sandbox/wire.ts
var RECEIPT_TYPE_PAYMENT = 1;
var TRANSFER_TYPE_A2C = 6;
var State = { created: 0, paid: 4, held: 5, cancelled: 21, supplierPending: 57 };
var toSeconds = /* @__PURE__ */ __name((ms) => ms === null ? 0 : Math.floor(ms / 1e3), "toSeconds");
function merchantDetails(m) {
  const { merchant_id, merchant_name, category_id, category_name, logo_url, min_amount, max_amount } = m;
  return { merchant_id, merchant_name, category_id, category_name, logo_url, min_amount, max_amount };
}
__name(merchantDetails, "merchantDetails");
function merchantOf(r) {
  const m = findMerchant(r.merchant_id);
  if (!m) throw new Error(`receipt ${r.id} references a merchant that is not in the catalog`);
  return m;
}
__name(merchantOf, "merchantOf");
function receiptBody(r) {
  return {
    tid: r.tid,
    id: r.id,
    state: r.state,
    create_date: r.created_ms,
    pay_date: toSeconds(r.paid_ms),
    cancel_date: toSeconds(r.cancelled_ms),
    error: r.error,
    type: RECEIPT_TYPE_PAYMENT,
    description: r.description,
    merchant: merchantDetails(merchantOf(r)),
    account: JSON.parse(r.account),
    ofd: r.ofd === null ? null : JSON.parse(r.ofd),
    amount: r.amount,
    init_amount: 0,
    currency: r.currency,
    comission: r.commission,
    is_verify: r.is_verify === 1,
    rrn: r.rrn,
    card_number: r.card_number
  };
}
__name(receiptBody, "receiptBody");
function reducedReceiptBody(r) {
  const full = receiptBody(r);
  const o = full.ofd;
  return {
    tid: full.tid,
    id: full.id,
    state: full.state,
    create_date: full.create_date,
    pay_date: full.pay_date,
    error: full.error ?? "",
    type: full.type,
    description: full.description,
    merchant: { ...full.merchant, fields: [] },
    account: full.account,
    ofd: o && {
      id: o.id,
      code: o.code,
      message: o.message,
      terminalId: o.terminalId,
      receiptId: o.receiptId,
      time: o.time,
      fiscalSign: o.fiscalSign,
      qrCodeUrl: o.qrCodeUrl
    },
    amount: full.amount,
    init_amount: full.init_amount,
    currency: full.currency,
    commission: full.comission
  };
}
__name(reducedReceiptBody, "reducedReceiptBody");
function transferBody(t) {
  const behaviour = t.sender_behaviour;
  const token = tokenOfBehaviour(behaviour);
  const sender = cardByToken(token);
  return {
    tId: t.tid,
    receipt_id: t.id,
    description: `Card transfer to ${t.receiver_pan}`,
    state: t.state,
    type: TRANSFER_TYPE_A2C,
    created_date: t.created_ms,
    pay_date: t.paid_ms,
    cancel_date: t.cancelled_ms,
    sender: {
      masked_pan: sender?.masked_pan ?? "",
      token,
      holder_name: sender?.holder_name ?? "",
      amount: t.amount + t.commission,
      currency: 860,
      commission: t.commission,
      phone: sender?.phone ?? null
    },
    receiver: {
      masked_pan: t.receiver_pan,
      holder_name: "SANDBOX RECEIVER",
      amount: t.amount,
      currency: 860,
      commission: 0,
      phone: null
    },
    error: t.error,
    ofd: null,
    is_verify: t.is_verify === 1
  };
}
__name(transferBody, "transferBody");
var TERMINAL_ID = "EZ000000000312";
function compactTashkentTime(ms) {
  return new Date(ms + 5 * 36e5).toISOString().replace(/\D/g, "").slice(0, 14);
}
__name(compactTashkentTime, "compactTashkentTime");
function digits(n) {
  const bytes2 = crypto.getRandomValues(new Uint8Array(n));
  return Array.from(bytes2, (b) => String(b % 10)).join("");
}
__name(digits, "digits");
var qrCodeUrl = /* @__PURE__ */ __name((terminalId, receiptId, time2, fiscalSign) => `https://ofd.soliq.uz/check?t=${terminalId}&r=${receiptId}&c=${time2}&s=${fiscalSign}`, "qrCodeUrl");
function fiscalHeader(time2) {
  const receiptId = Number(digits(7)) + 1;
  const fiscalSign = digits(12);
  return {
    id: crypto.randomUUID(),
    code: 0,
    message: "accepted",
    terminalId: TERMINAL_ID,
    receiptId,
    time: time2,
    fiscalSign,
    qrCodeUrl: qrCodeUrl(TERMINAL_ID, receiptId, time2, fiscalSign)
  };
}
__name(fiscalHeader, "fiscalHeader");
var fiscalWithheld = /* @__PURE__ */ __name((ofd) => ({ ...ofd, message: "queued at the fiscal data operator", fiscalSign: "", qrCodeUrl: "" }), "fiscalWithheld");
function fiscalAnswered(ofd) {
  const fiscalSign = digits(12);
  return { ...ofd, message: "accepted", fiscalSign, qrCodeUrl: qrCodeUrl(ofd.terminalId, ofd.receiptId, ofd.time, fiscalSign) };
}
__name(fiscalAnswered, "fiscalAnswered");
function saleOfd(r, now) {
  const m = merchantOf(r);
  return {
    ...fiscalHeader(compactTashkentTime(now)),
    tin: m.tin,
    spic: m.spic,
    vatRate: 12,
    label: m.merchant_name,
    packageCode: m.package_code,
    type: "Sale",
    merchantInfo: { name: m.merchant_name, tin: m.tin, address: m.address },
    items: [
      {
        title: r.description ?? m.merchant_name,
        unit_price: r.amount,
        count: 1,
        spic: m.spic,
        pinfl: "",
        tin: m.tin,
        package_code: m.package_code,
        units: 1,
        vat_percent: 12,
        discount: 0
      }
    ]
  };
}
__name(saleOfd, "saleOfd");
function refundOfd(r, now) {
  const m = merchantOf(r);
  return {
    ...fiscalHeader(new Date(now).toISOString()),
    partnerFiscaliztionUrl: `https://sandbox.upstream.invalid/fiscal/${r.id}/refund`,
    tin: m.tin,
    spic: m.spic,
    vatRate: 12,
    label: m.merchant_name,
    packageCode: m.package_code,
    type: "Refund",
    merchantInfo: { tin: m.tin, pinfl: "" },
    items: [{ name: r.description ?? m.merchant_name, price: r.amount, quantity: 1, sum: r.amount }]
  };
}
__name(refundOfd, "refundOfd");

// src/sandbox/answers.ts
var fail2 = /* @__PURE__ */ __name((status, code, message2, extra) => ({
  ok: false,
  status,
  code,
  message: message2,
  ...extra ? { extra } : {}
}), "fail");
var ok = /* @__PURE__ */ __name((body) => ({ ok: true, body }), "ok");
var judgedOtp = /* @__PURE__ */ __name((failure) => failure?.code === "OTP_INVALID" || failure?.code === "OTP_ATTEMPTS_EXCEEDED", "judgedOtp");
var unknownCode = /* @__PURE__ */ __name(() => fail2(400, "SANDBOX_UNKNOWN", "The payment service refused the request for a reason it does not name"), "unknownCode");
var stalled = /* @__PURE__ */ __name(() => ({ ...fail2(500, "INTERNAL_ERROR", "Upstream processing error"), stall: true }), "stalled");
var receiptNotFound = /* @__PURE__ */ __name(() => fail2(404, "RECEIPT_NOT_FOUND", "No receipt with this id"), "receiptNotFound");
var busy = /* @__PURE__ */ __name(() => ({ ...fail2(503, "BUSY", "The payment service is busy; nothing was done, try again later"), retryAfter: 1 }), "busy");
function refusePay(r) {
  if (r.state === State.cancelled) return fail2(400, "RECEIPT_CANCELLED", "Receipt is cancelled", { receipt: receiptBody(r) });
  if (r.state !== State.created) return fail2(400, "RECEIPT_ALREADY_PAID", "Receipt is already paid", { receipt: receiptBody(r) });
  return null;
}
__name(refusePay, "refusePay");

// src/sandbox/clockwork.ts
function msSetting(value, fallback) {
  const ms = Number(value ?? fallback);
  return Number.isFinite(ms) && ms >= 0 ? ms : fallback;
}
__name(msSetting, "msSetting");
function supplierAnswer(r, now) {
  if (r.state !== State.supplierPending || r.supplier_due_ms === null || now < r.supplier_due_ms) return null;
  const at = r.supplier_due_ms;
  if (r.card_behaviour === "supplier_fails") {
    return {
      state: State.cancelled,
      cancelled_ms: at,
      supplier_due_ms: null,
      error: "The supplier refused the payment; the amount is refunded to the card",
      ...r.is_hold === 1 ? { hold_status: "released" } : {}
    };
  }
  if (r.is_hold === 1) return { state: State.held, hold_status: "held", paid_ms: null, supplier_due_ms: null };
  return { state: State.paid, paid_ms: r.paid_ms ?? at, ofd: JSON.stringify(saleOfd(r, at)), supplier_due_ms: null };
}
__name(supplierAnswer, "supplierAnswer");
function latePay(r, now, rrn2) {
  if (r.late_pay_due_ms === null || now < r.late_pay_due_ms) return null;
  const at = r.late_pay_due_ms;
  if (r.state !== State.created) return { late_pay_due_ms: null };
  const charged = {
    late_pay_due_ms: null,
    error: null,
    rrn: rrn2(),
    card_behaviour: "pays_late",
    card_number: cardByToken(tokenOfBehaviour("pays_late")).masked_pan
  };
  return r.is_hold === 1 ? { ...charged, state: State.held, hold_status: "held" } : { ...charged, state: State.paid, paid_ms: at, ofd: JSON.stringify(saleOfd(r, at)) };
}
__name(latePay, "latePay");
function fiscalData(r, now) {
  if (r.fiscal_due_ms === null || now < r.fiscal_due_ms) return null;
  if (r.ofd === null) return { fiscal_due_ms: null };
  return { fiscal_due_ms: null, ofd: JSON.stringify(fiscalAnswered(JSON.parse(r.ofd))) };
}
__name(fiscalData, "fiscalData");
function lateTransferPay(t, now) {
  if (t.late_pay_due_ms === null || now < t.late_pay_due_ms) return null;
  return t.state === State.created ? { late_pay_due_ms: null, state: State.paid, paid_ms: t.late_pay_due_ms, error: "" } : { late_pay_due_ms: null };
}
__name(lateTransferPay, "lateTransferPay");

// src/sandbox/schema.ts
var SCHEMA = [
  `CREATE TABLE IF NOT EXISTS tids (tid TEXT PRIMARY KEY, kind TEXT NOT NULL, record_id TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS receipts (
    id TEXT PRIMARY KEY, tid TEXT NOT NULL UNIQUE, merchant_id INTEGER NOT NULL, amount INTEGER NOT NULL,
    commission INTEGER NOT NULL, currency INTEGER NOT NULL, description TEXT, account TEXT NOT NULL,
    is_hold INTEGER NOT NULL, is_verify INTEGER NOT NULL, state INTEGER NOT NULL, created_ms INTEGER NOT NULL,
    paid_ms INTEGER, cancelled_ms INTEGER, error TEXT, rrn TEXT, card_number TEXT, card_behaviour TEXT,
    hold_status TEXT, ofd TEXT, otp_attempts INTEGER NOT NULL DEFAULT 0, wrong_otps INTEGER NOT NULL DEFAULT 0,
    otp_sent_ms INTEGER, cancel_reason TEXT, cancelled_by TEXT, supplier_due_ms INTEGER,
    expired_otps INTEGER NOT NULL DEFAULT 0, late_pay_due_ms INTEGER, fiscal_due_ms INTEGER)`,
  `CREATE TABLE IF NOT EXISTS transfers (
    id TEXT PRIMARY KEY, tid TEXT NOT NULL UNIQUE, amount INTEGER NOT NULL, commission INTEGER NOT NULL,
    rate_id INTEGER NOT NULL, sender_behaviour TEXT NOT NULL, receiver_pan TEXT NOT NULL,
    receiver_unavailable INTEGER NOT NULL, is_verify INTEGER NOT NULL, state INTEGER NOT NULL,
    created_ms INTEGER NOT NULL, paid_ms INTEGER, cancelled_ms INTEGER, error TEXT NOT NULL DEFAULT '',
    otp_attempts INTEGER NOT NULL DEFAULT 0, wrong_otps INTEGER NOT NULL DEFAULT 0, late_pay_due_ms INTEGER)`,
  `CREATE TABLE IF NOT EXISTS calls (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, path TEXT NOT NULL, tid TEXT, id TEXT,
    status INTEGER NOT NULL, code TEXT, request_id TEXT, otp INTEGER NOT NULL DEFAULT 0)`
];
var ADDED_COLUMNS = [
  { table: "receipts", column: "supplier_due_ms", declaration: "INTEGER" },
  { table: "calls", column: "otp", declaration: "INTEGER NOT NULL DEFAULT 0" },
  { table: "receipts", column: "expired_otps", declaration: "INTEGER NOT NULL DEFAULT 0" },
  { table: "receipts", column: "late_pay_due_ms", declaration: "INTEGER" },
  { table: "transfers", column: "late_pay_due_ms", declaration: "INTEGER" },
  { table: "receipts", column: "fiscal_due_ms", declaration: "INTEGER" },
  // Each record's own time (its test clock): 0 until advanced.
  { table: "receipts", column: "clock_offset_ms", declaration: "INTEGER NOT NULL DEFAULT 0" },
  { table: "transfers", column: "clock_offset_ms", declaration: "INTEGER NOT NULL DEFAULT 0" }
];
function ensureSchema(sql2) {
  for (const statement of SCHEMA) sql2.exec(statement);
  for (const { table: table2, column, declaration } of ADDED_COLUMNS) {
    const columns = sql2.exec(`PRAGMA table_info(${table2})`).toArray();
    if (!columns.some((c) => c.name === column)) sql2.exec(`ALTER TABLE ${table2} ADD COLUMN ${column} ${declaration}`);
  }
}
__name(ensureSchema, "ensureSchema");

// src/sandbox/store.ts
var randomHex = /* @__PURE__ */ __name((bytes2) => Array.from(crypto.getRandomValues(new Uint8Array(bytes2)), (b) => b.toString(16).padStart(2, "0")).join(""), "randomHex");
var nowOf = /* @__PURE__ */ __name((row) => Date.now() + row.clock_offset_ms, "nowOf");
var rrn = /* @__PURE__ */ __name(() => String(1e11 + Number.parseInt(randomHex(5), 16) % 9e11), "rrn");
var SandboxStore = class {
  static {
    __name(this, "SandboxStore");
  }
  sql;
  constructor(sql2) {
    this.sql = sql2;
    ensureSchema(sql2);
  }
  // --- rows -----------------------------------------------------------------
  /** Every read of a receipt settles a due supplier answer, then a due late pay, then due fiscal data, unless told not to. */
  receipt(id, settle = true) {
    const read = /* @__PURE__ */ __name(() => this.sql.exec("SELECT * FROM receipts WHERE id = ?", id).toArray()[0], "read");
    let row = read();
    if (!row || !settle) return row;
    for (const due of [supplierAnswer, latePay, fiscalData]) {
      const fields = due(row, nowOf(row), rrn);
      if (fields) {
        this.update("receipts", id, fields);
        row = read();
      }
    }
    return row;
  }
  /** Every read of a transfer settles a due late pay first, unless told not to. */
  transfer(id, settle = true) {
    const row = this.sql.exec("SELECT * FROM transfers WHERE id = ?", id).toArray()[0];
    const fields = row && settle ? lateTransferPay(row, nowOf(row)) : null;
    if (!fields) return row;
    this.update("transfers", id, fields);
    return this.transfer(id, false);
  }
  receiptBody(id) {
    return receiptBody(this.receipt(id));
  }
  transferBody(id) {
    return transferBody(this.transfer(id));
  }
  update(table2, id, fields) {
    const entries = Object.entries(fields);
    const set = entries.map(([column]) => `${column} = ?`).join(", ");
    this.sql.exec(`UPDATE ${table2} SET ${set} WHERE id = ?`, ...entries.map(([, value]) => value), id);
  }
  // --- shared rules ---------------------------------------------------------
  /** Receipts and transfers share one tid space, as the contract requires. */
  tidTaken(tid) {
    const taken = this.sql.exec("SELECT kind, record_id FROM tids WHERE tid = ?", tid).toArray()[0];
    if (!taken) return null;
    const existing = taken.kind === "receipt" ? { receipt: this.receiptBody(taken.record_id) } : { transfer: this.transferBody(taken.record_id) };
    return fail2(409, "TID_DUPLICATE", "tid is already used", existing);
  }
  /**
   * Every submitted OTP counts as received; the third wrong one cancels the
   * record. One that is not `live` (never sent, or past its lifetime) is
   * refused unjudged, right or wrong. The failure carries the record as it
   * stands afterwards.
   */
  checkOtp(table2, record, otp, live) {
    const verdict = this.#submitOtp(table2, record, otp, live);
    if (verdict === "correct") return null;
    const current = table2 === "receipts" ? { receipt: this.receiptBody(record.id) } : { transfer: this.transferBody(record.id) };
    switch (verdict) {
      case "missing":
        return fail2(400, "OTP_REQUIRED", "An OTP is required to pay");
      case "expired":
        return fail2(400, "OTP_EXPIRED", "No OTP was sent for this receipt, or it has expired; authorize again", current);
      case "wrong":
        return fail2(400, "OTP_INVALID", "OTP is incorrect", { attempts_left: MAX_WRONG_OTPS - record.wrong_otps - 1, ...current });
      case "exceeded":
        return fail2(400, "OTP_ATTEMPTS_EXCEEDED", "Too many incorrect OTPs; the receipt is cancelled", { attempts_left: 0, ...current });
    }
  }
  #submitOtp(table2, record, otp, live) {
    if (otp === void 0 || otp === "") return "missing";
    if (!live) {
      this.sql.exec("UPDATE receipts SET otp_attempts = otp_attempts + 1, expired_otps = expired_otps + 1 WHERE id = ?", record.id);
      return "expired";
    }
    if (otp === CORRECT_OTP) {
      this.sql.exec(`UPDATE ${table2} SET otp_attempts = otp_attempts + 1 WHERE id = ?`, record.id);
      return "correct";
    }
    const wrong = record.wrong_otps + 1;
    if (wrong < MAX_WRONG_OTPS) {
      this.sql.exec(`UPDATE ${table2} SET otp_attempts = otp_attempts + 1, wrong_otps = ? WHERE id = ?`, wrong, record.id);
      return "wrong";
    }
    this.sql.exec(
      `UPDATE ${table2} SET otp_attempts = otp_attempts + 1, wrong_otps = ?, state = ?, cancelled_ms = ?, error = ? WHERE id = ?`,
      wrong,
      State.cancelled,
      nowOf(record),
      "OTP attempts exceeded",
      record.id
    );
    return "exceeded";
  }
  // --- call log (lets tests prove what did or did not reach the upstream) ---
  recordCall(call) {
    this.sql.exec(
      "INSERT INTO calls (at, path, tid, id, status, code, request_id, otp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      Date.now(),
      call.path,
      call.tid,
      call.id,
      call.status,
      call.code,
      call.request_id,
      call.otp ? 1 : 0
    );
  }
  /** Oldest first; with `id`, only the calls naming that record. */
  calls(id) {
    const rows = id === void 0 ? this.sql.exec("SELECT * FROM calls ORDER BY seq") : this.sql.exec("SELECT * FROM calls WHERE id = ? ORDER BY seq", id);
    return rows.toArray().map((row) => ({ ...row, otp: row.otp === 1 }));
  }
};

// src/sandbox/test-clock.ts
var TRIGGERS = ["pay_late", "supplier_confirms", "supplier_fails", "fiscal_data_appears", "refund_fiscal_data_appears"];
var rowOf = /* @__PURE__ */ __name((store2, kind, id) => kind === "receipts" ? store2.receipt(id, false) : store2.transfer(id, false), "rowOf");
var otpEndsAt = /* @__PURE__ */ __name((r, otpTtlMs3) => r.otp_sent_ms === null ? null : r.otp_sent_ms + otpTtlMs3, "otpEndsAt");
function deadlines(row, otpTtlMs3) {
  const now = nowOf(row);
  const due = [row.late_pay_due_ms];
  if ("supplier_due_ms" in row) {
    due.push(row.supplier_due_ms, row.fiscal_due_ms);
    const otpEnd = row.state === State.created ? otpEndsAt(row, otpTtlMs3) : null;
    if (otpEnd !== null && otpEnd > now) due.push(otpEnd);
  }
  return due.filter((at) => at !== null);
}
__name(deadlines, "deadlines");
function nextDue(store2, kind, id, otpTtlMs3) {
  const row = rowOf(store2, kind, id);
  if (!row) return void 0;
  const due = deadlines(row, otpTtlMs3);
  return due.length === 0 ? null : Math.max(0, Math.min(...due) - nowOf(row));
}
__name(nextDue, "nextDue");
function advance(store2, kind, id, byMs, otpTtlMs3) {
  const before = rowOf(store2, kind, id);
  if (!before) return void 0;
  const offset = before.clock_offset_ms + byMs;
  if (kind === "receipts") store2.update("receipts", id, { clock_offset_ms: offset });
  else store2.update("transfers", id, { clock_offset_ms: offset });
  const now = nowOf({ clock_offset_ms: offset });
  const after = kind === "receipts" ? store2.receipt(id) : store2.transfer(id);
  const happened = [];
  if ("supplier_due_ms" in before && "supplier_due_ms" in after) {
    const otpEnd = before.state === State.created ? otpEndsAt(before, otpTtlMs3) : null;
    if (otpEnd !== null && otpEnd > nowOf(before) && otpEnd <= now) happened.push({ at: otpEnd, what: "otp_expired" });
    if (before.supplier_due_ms !== null && after.supplier_due_ms === null) {
      happened.push({ at: before.supplier_due_ms, what: after.state === State.cancelled ? "supplier_failed" : "supplier_confirmed" });
    }
    if (before.fiscal_due_ms !== null && after.fiscal_due_ms === null) happened.push({ at: before.fiscal_due_ms, what: "fiscal_data_appeared" });
  }
  if (before.late_pay_due_ms !== null && after.late_pay_due_ms === null && after.state !== before.state) {
    happened.push({ at: before.late_pay_due_ms, what: "paid_late" });
  }
  return happened.sort((a, b) => a.at - b.at);
}
__name(advance, "advance");
var notApplicable = /* @__PURE__ */ __name((what, why) => fail2(400, "TRIGGER_NOT_APPLICABLE", `${what}: ${why}`), "notApplicable");
function trigger(store2, id, what) {
  const r = store2.receipt(id);
  if (!r) return fail2(404, "RECEIPT_NOT_FOUND", "No receipt with this id");
  const now = nowOf(r);
  switch (what) {
    case "pay_late":
      if (r.late_pay_due_ms === null) return notApplicable(what, "no pay of this receipt is lost upstream (pay it with tok_sandbox_pays_late first)");
      store2.update("receipts", id, { late_pay_due_ms: now });
      break;
    case "supplier_confirms":
    case "supplier_fails":
      if (r.state !== State.supplierPending) return notApplicable(what, `the receipt is in state ${r.state}, not 57 (awaiting the supplier)`);
      store2.update("receipts", id, { supplier_due_ms: now, card_behaviour: what === "supplier_fails" ? "supplier_fails" : "supplier_pending" });
      break;
    case "fiscal_data_appears":
    case "refund_fiscal_data_appears": {
      const refund = what === "refund_fiscal_data_appears";
      const waiting = r.fiscal_due_ms !== null && r.state === State.cancelled === refund;
      if (!waiting) {
        return notApplicable(
          what,
          `the receipt's ${refund ? "refund" : "sale"} has no fiscal data still to come (a tok_sandbox_fiscal_late ${refund ? "payment, cancelled" : "payment"})`
        );
      }
      store2.update("receipts", id, { fiscal_due_ms: now });
      break;
    }
  }
  return ok({ id, what, state: store2.receipt(id).state });
}
__name(trigger, "trigger");

// src/console/test-clock.ts
var UNIT_MS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5 };
var MAX_ADVANCE_MS = 400 * UNIT_MS.d;
var MAX_STEPS = 500;
var MAX_ID_LENGTH2 = 128;
function durationMs(text2) {
  if (typeof text2 !== "string") return null;
  const match2 = /^([1-9][0-9]{0,5})([smhd])$/.exec(text2);
  if (!match2) return null;
  const ms = Number(match2[1]) * UNIT_MS[match2[2]];
  return ms <= MAX_ADVANCE_MS ? ms : null;
}
__name(durationMs, "durationMs");
var AdvanceBody = strictObject({ by: string() });
var TriggerBody = strictObject({ what: picklist(TRIGGERS) });
var sandboxOf = /* @__PURE__ */ __name((env) => {
  if (!env.SANDBOX) throw new Error("SANDBOX binding is missing");
  return env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
}, "sandboxOf");
function otpTtlMs(env) {
  const ms = Number(env.SANDBOX_OTP_TTL_MS ?? 3e5);
  return Number.isFinite(ms) && ms >= 0 ? ms : 3e5;
}
__name(otpTtlMs, "otpTtlMs");
var invalid = /* @__PURE__ */ __name((message2) => new ApiError("invalid_request", message2), "invalid");
async function bodyOf(c) {
  const type = c.req.header("content-type") ?? "";
  if (type.startsWith("application/x-www-form-urlencoded")) return { form: true, value: Object.fromEntries(Object.entries(await c.req.parseBody())) };
  try {
    return { form: false, value: await c.req.json() };
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
}
__name(bodyOf, "bodyOf");
function idOf(c) {
  const id = c.req.param("id") ?? "";
  if (id.length === 0 || id.length > MAX_ID_LENGTH2) throw new ApiError("receipt_not_found", "No receipt or transfer with this id.");
  return id;
}
__name(idOf, "idOf");
async function advanceRecord(env, kind, id, byMs) {
  const record = receiptStub(env, kind, id);
  const sandbox2 = sandboxOf(env);
  const table2 = kind === "receipt" ? "receipts" : "transfers";
  const ttl = otpTtlMs(env);
  const windows = retentionPolicy(env);
  const steps = [];
  const upstream = /* @__PURE__ */ __name((happened) => {
    for (const h of happened ?? []) steps.push({ at: h.at, by: "upstream", what: h.what });
  }, "upstream");
  let left = byMs;
  for (let i = 0; i < MAX_STEPS; i++) {
    const state = await record.clockState();
    if (!state) return i === 0 ? null : { steps, now: null, ended: true };
    const sandboxIn = await sandbox2.nextDue(table2, id, ttl);
    const step = Math.min(state.wakeIn ?? Infinity, sandboxIn ?? Infinity);
    if (step > left) break;
    upstream(await sandbox2.advance(table2, id, step, ttl));
    await pruneRecordEvents(
      env,
      id,
      state.eventIds,
      { deliveredMs: windows.deliveredEventsMs, undeliveredMs: windows.undeliveredEventsMs },
      state.now + step
    );
    const fire = state.wakeIn !== null && state.wakeIn <= step;
    const shown2 = await record.advanceTime(step, fire);
    left -= step;
    if (fire && shown2) steps.push({ at: shown2.now, by: "gateway", what: shown2.ended ? "ended" : "alarm", state: shown2.state, events: shown2.events });
    if (!shown2 || shown2.ended) return { steps, now: null, ended: true };
  }
  upstream(await sandbox2.advance(table2, id, left, ttl));
  const shown = await record.advanceTime(left, false);
  return { steps, now: shown?.now ?? null, ended: shown === null };
}
__name(advanceRecord, "advanceRecord");
var testClock = new Hono3();
testClock.use("*", requestId(), negotiateLanguage);
testClock.onError(renderError);
var advanceAt = /* @__PURE__ */ __name((kind) => testClock.post(`/__sandbox/${KIND_SEGMENTS[kind]}/:id/advance`, csrf(), async (c) => {
  const id = idOf(c);
  const { form, value } = await bodyOf(c);
  const parsed = safeParse(AdvanceBody, value);
  const byMs = parsed.success ? durationMs(parsed.output.by) : null;
  if (byMs === null) {
    throw invalid('"by" must be a whole number of seconds, minutes, hours or days, such as "90s", "10m", "25h" or "8d", at most 400 days.');
  }
  const advanced = await advanceRecord(c.env, kind, id, byMs);
  if (!advanced) throw new ApiError("receipt_not_found", `The gateway holds no ${kind} with this id.`);
  if (form) return c.redirect(`${recordPath(kind, id)}#clock`, 303);
  return c.json({ id, kind, by_ms: byMs, ...advanced });
}), "advanceAt");
advanceAt("receipt");
advanceAt("transfer");
testClock.post("/__sandbox/receipts/:id/trigger", csrf(), async (c) => {
  const id = idOf(c);
  const { form, value } = await bodyOf(c);
  const parsed = safeParse(TriggerBody, value);
  if (!parsed.success) throw invalid(`"what" must be one of ${TRIGGERS.join(", ")}.`);
  const done = await sandboxOf(c.env).trigger(id, parsed.output.what);
  if (!done.ok) {
    if (done.code === "RECEIPT_NOT_FOUND") throw new ApiError("receipt_not_found", "The sandbox holds no receipt with this id.");
    throw invalid(done.message);
  }
  if (form) return c.redirect(`${recordPath("receipt", id)}#clock`, 303);
  return c.json(done.body);
});

// src/audit/entries.ts
var FIELDS = [
  "id",
  "at",
  "source",
  "op",
  "actor",
  "request_id",
  "outcome",
  "state",
  "kind",
  "receipt_id",
  "user",
  "staff",
  "role",
  "target",
  "detail"
];
var WHOLE = /* @__PURE__ */ new Set(["id", "receipt_id", "user", "actor", "staff"]);
function cleanLine(line) {
  const out = {};
  for (const field of FIELDS) {
    const value = line[field];
    if (value !== void 0) out[field] = WHOLE.has(field) ? value : redact(value);
  }
  return out;
}
__name(cleanLine, "cleanLine");
function filterKeys(line) {
  const keys = [];
  if (line.receipt_id) keys.push(`r:${line.receipt_id}`);
  if (line.user) keys.push(`u:${line.user}`);
  if (line.staff) keys.push(`s:${line.staff.toLowerCase()}`);
  if (line.user && holdsPersonalValues(line)) keys.push(`p:${line.user}`);
  return keys;
}
__name(filterKeys, "filterKeys");
function holdsPersonalValues(line) {
  const detail = line.detail;
  if (!detail) return false;
  return Array.isArray(detail.account) ? detail.account.length > 0 : typeof detail.phone === "string";
}
__name(holdsPersonalValues, "holdsPersonalValues");
function auditChains(env) {
  const n = Number(env.AUDIT_CHAINS);
  return Number.isInteger(n) && n > 0 && n <= 64 ? n : 2;
}
__name(auditChains, "auditChains");
var chainFor = /* @__PURE__ */ __name((env, key) => `w${fnv1a(key) % auditChains(env)}`, "chainFor");
function flushMs(env) {
  const n = Number(env.AUDIT_FLUSH_SECONDS);
  return (Number.isFinite(n) && n > 0 ? n : 60) * 1e3;
}
__name(flushMs, "flushMs");
var holdMs = /* @__PURE__ */ __name((env) => flushMs(env) / 2, "holdMs");

// src/audit/append.ts
async function appendAudit(env, key, lines2) {
  const chain = chainFor(env, key);
  await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain)).append(chain, lines2);
}
__name(appendAudit, "appendAudit");

// src/audit/calls.ts
var KEPT = ["id", "receipt_id", "user", "staff", "kind", "type", "delivery", "date", "from", "to", "after", "limit", "dry_run"];
function keptFields(body) {
  if (!body || typeof body !== "object" || Array.isArray(body)) return {};
  const out = {};
  for (const field of KEPT) {
    const value = body[field];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      out[field] = typeof value === "string" ? value.slice(0, 255) : value;
  }
  return out;
}
__name(keptFields, "keptFields");
async function outcomeOf(status, error, response) {
  if (status < 400) return "ok";
  if (error instanceof ApiError) return error.code;
  try {
    const body = await response?.clone().json();
    if (typeof body?.error?.code === "string") return body.error.code;
  } catch {
  }
  return String(status);
}
__name(outcomeOf, "outcomeOf");
var auditCalls = /* @__PURE__ */ __name((prefix) => createMiddleware(async (c, next) => {
  let thrown;
  try {
    await next();
  } catch (err) {
    thrown = err;
  }
  const status = thrown instanceof ApiError ? thrown.status : thrown ? 500 : c.res.status;
  const caller = c.var.caller;
  let body;
  const cached = c.req.bodyCache.text;
  if (caller && cached) {
    try {
      body = JSON.parse(await cached);
    } catch {
      body = void 0;
    }
  }
  const fields = keptFields(body);
  const at = Date.now();
  const requestId2 = c.var.requestId;
  const line = {
    id: `g:${redact(requestId2)}:${at}`,
    at,
    source: "gateway",
    op: c.req.path.startsWith(prefix) ? c.req.path.slice(prefix.length).replace(/^\/+/, "") : c.req.path,
    actor: caller ? caller.kind === "partner" ? "partner" : `user:${caller.id}` : "unauthenticated",
    request_id: requestId2,
    outcome: await outcomeOf(status, thrown ?? c.error, thrown ? void 0 : c.res),
    ...typeof fields.receipt_id === "string" ? { receipt_id: fields.receipt_id } : typeof fields.id === "string" && !String(fields.id).startsWith("evt_") ? { receipt_id: fields.id } : {},
    ...typeof fields.user === "string" ? { user: fields.user } : {},
    detail: { method: c.req.method, status, ...fields }
  };
  try {
    await appendAudit(c.env, `gateway:${requestId2}`, [line]);
  } catch (err) {
    log("error", "audit_append_failed", { request_id: requestId2, op: line.op, error: err instanceof Error ? err.message : String(err) });
  }
  if (thrown) throw thrown;
}), "auditCalls");

// src/audit/staff.ts
async function auditStaff(env, entry) {
  const at = entry.at ?? Date.now();
  const email2 = entry.email.trim().toLowerCase();
  await appendAudit(env, `staff:${email2}`, [
    {
      id: `s:${redact(entry.request_id)}:${at}:${redact(entry.action)}`,
      at,
      source: "staff",
      op: entry.action,
      actor: `staff:${email2}`,
      request_id: entry.request_id,
      outcome: entry.outcome,
      staff: email2,
      role: entry.role,
      target: entry.target,
      ...entry.receipt_id ? { receipt_id: entry.receipt_id } : {},
      ...entry.user ? { user: entry.user } : {}
    }
  ]);
}
__name(auditStaff, "auditStaff");

// src/d1/fiscal-list.ts
async function listFiscal(env, listing) {
  await env.DB.prepare(
    `INSERT INTO fiscal_pending (id, tid, amount, state, since, reads) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (id) DO UPDATE SET tid = excluded.tid, amount = excluded.amount, state = excluded.state, since = excluded.since, reads = excluded.reads`
  ).bind(listing.id, listing.tid, listing.amount, listing.state, listing.since, listing.reads).run();
}
__name(listFiscal, "listFiscal");
async function unlistFiscal(env, id) {
  await env.DB.prepare("DELETE FROM fiscal_pending WHERE id = ?1").bind(id).run();
}
__name(unlistFiscal, "unlistFiscal");
async function placeOf(env, after) {
  const row = await env.DB.prepare("SELECT since FROM fiscal_pending WHERE id = ?1").bind(after).first();
  if (row) return { since: row.since, id: after };
  const since = await receiptStub(env, "receipt", after).fiscalSince();
  return since === null ? null : { since, id: after };
}
__name(placeOf, "placeOf");
async function fiscalPendingPage(env, query) {
  const place = query.after === void 0 ? null : await placeOf(env, query.after);
  if (query.after !== void 0 && place === null) return null;
  const statement = place ? env.DB.prepare("SELECT id, tid, amount, state, since, reads FROM fiscal_pending WHERE (since, id) > (?1, ?2) ORDER BY since, id LIMIT ?3").bind(
    place.since,
    place.id,
    query.limit + 1
  ) : env.DB.prepare("SELECT id, tid, amount, state, since, reads FROM fiscal_pending ORDER BY since, id LIMIT ?1").bind(query.limit + 1);
  const { results } = await statement.all();
  return { receipts: results.slice(0, query.limit), has_more: results.length > query.limit };
}
__name(fiscalPendingPage, "fiscalPendingPage");

// ../../../work/main/node_modules/hono/dist/middleware/body-limit/index.js
var ERROR_MESSAGE = "Payload Too Large";
var bodyLimit = /* @__PURE__ */ __name((options) => {
  const onError = options.onError || (() => {
    const res = new Response(ERROR_MESSAGE, { status: 413 });
    throw new HTTPException(413, { res });
  });
  const maxSize = options.maxSize;
  return /* @__PURE__ */ __name(async function bodyLimit2(c, next) {
    if (!c.req.raw.body) return next();
    const hasTransferEncoding = c.req.raw.headers.has("transfer-encoding");
    if (c.req.raw.headers.has("content-length") && !hasTransferEncoding) return parseInt(c.req.raw.headers.get("content-length") || "0", 10) > maxSize ? onError(c) : next();
    let size = 0;
    let buffer = /* @__PURE__ */ new Uint8Array(0);
    const rawReader = c.req.raw.body.getReader();
    for (; ; ) {
      const { done, value } = await rawReader.read();
      if (done) break;
      const offset = size;
      size += value.length;
      if (size > maxSize) return onError(c);
      if (size > buffer.length) {
        const grown = new Uint8Array(Math.min(maxSize, Math.max(size, buffer.length * 2)));
        grown.set(buffer.subarray(0, offset));
        buffer = grown;
      }
      buffer.set(value, offset);
    }
    c.req.raw = new Request(c.req.raw, { body: buffer.subarray(0, size) });
    return next();
  }, "bodyLimit");
}, "bodyLimit");

// ../../../work/main/node_modules/hono/dist/utils/handler.js
var findTargetHandler = /* @__PURE__ */ __name((handler) => {
  return handler["__COMPOSED_HANDLER"] ? findTargetHandler(handler[COMPOSED_HANDLER]) : handler;
}, "findTargetHandler");

// ../../../work/main/node_modules/hono/dist/validator/validator.js
var jsonRegex = /^application\/([\w.-]+\+)?json$/i;
var getMediaType = /* @__PURE__ */ __name((contentType) => contentType.split(";")[0].trim().toLowerCase(), "getMediaType");
var validator = /* @__PURE__ */ __name((target, validationFunc) => {
  return async (c, next) => {
    let value = {};
    const contentType = c.req.header("Content-Type");
    const mediaType = contentType ? getMediaType(contentType) : "";
    switch (target) {
      case "json":
        if (!jsonRegex.test(mediaType)) break;
        try {
          value = await c.req.json();
        } catch {
          throw new HTTPException(400, { message: "Malformed JSON in request body" });
        }
        break;
      case "form": {
        if (mediaType !== "multipart/form-data" && mediaType !== "application/x-www-form-urlencoded") break;
        let formData;
        if (c.req.bodyCache.formData) formData = await c.req.bodyCache.formData;
        else try {
          const arrayBuffer = await c.req.arrayBuffer();
          formData = await bufferToFormData(arrayBuffer, contentType);
          c.req.bodyCache.formData = formData;
        } catch (e) {
          let message2 = "Malformed FormData request.";
          message2 += e instanceof Error ? ` ${e.message}` : ` ${String(e)}`;
          throw new HTTPException(400, { message: message2 });
        }
        const form = /* @__PURE__ */ Object.create(null);
        formData.forEach((value2, key) => {
          if (key.endsWith("[]")) (form[key] ??= []).push(value2);
          else if (Array.isArray(form[key])) form[key].push(value2);
          else if (Object.hasOwn(form, key)) form[key] = [form[key], value2];
          else form[key] = value2;
        });
        value = form;
        break;
      }
      case "query":
        value = Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => {
          return v.length === 1 ? [k, v[0]] : [k, v];
        }));
        break;
      case "param":
        value = c.req.param();
        break;
      case "header":
        value = c.req.header();
        break;
      case "cookie":
        value = getCookie(c);
    }
    const res = await validationFunc(value, c);
    if (res instanceof Response) return res;
    c.req.addValidatedData(target, res);
    return await next();
  };
}, "validator");

// ../../../work/main/node_modules/@hono/standard-validator/dist/index.mjs
var RESTRICTED_DATA_FIELDS = { header: ["cookie"] };
function sanitizeIssues(issues, vendor, target) {
  if (!(target in RESTRICTED_DATA_FIELDS)) return issues;
  const restrictedFields = RESTRICTED_DATA_FIELDS[target] || [];
  if (vendor === "arktype") return sanitizeArktypeIssues(issues, restrictedFields);
  if (vendor === "valibot") return sanitizeValibotIssues(issues, restrictedFields);
  return issues;
}
__name(sanitizeIssues, "sanitizeIssues");
function sanitizeArktypeIssues(issues, restrictedFields) {
  return issues.map((issue) => {
    if (issue && typeof issue === "object" && "data" in issue && typeof issue.data === "object" && issue.data !== null && !Array.isArray(issue.data)) {
      const dataCopy = { ...issue.data };
      for (const field of restrictedFields) delete dataCopy[field];
      const sanitizedIssue = Object.create(Object.getPrototypeOf(issue));
      Object.assign(sanitizedIssue, issue, { data: dataCopy });
      return sanitizedIssue;
    }
    return issue;
  });
}
__name(sanitizeArktypeIssues, "sanitizeArktypeIssues");
function sanitizeValibotIssues(issues, restrictedFields) {
  return issues.map((issue) => {
    if (issue && typeof issue === "object" && "path" in issue && Array.isArray(issue.path)) {
      for (const path of issue.path) if (typeof path === "object" && "input" in path && typeof path.input === "object" && path.input !== null && !Array.isArray(path.input)) for (const field of restrictedFields) delete path.input[field];
    }
    return issue;
  });
}
__name(sanitizeValibotIssues, "sanitizeValibotIssues");
var sValidator = /* @__PURE__ */ __name((target, schema, hook) => validator(target, async (value, c) => {
  const result = await schema["~standard"].validate(value);
  if (hook) {
    const hookResult = await hook(result.issues ? {
      data: value,
      error: result.issues,
      success: false,
      target
    } : {
      data: value,
      success: true,
      target
    }, c);
    if (hookResult) {
      if (hookResult instanceof Response) return hookResult;
      if (typeof hookResult === "object" && "response" in hookResult) return hookResult.response;
    }
  }
  if (result.issues) {
    const processedIssues = sanitizeIssues(result.issues, schema["~standard"].vendor, target);
    return c.json({
      data: value,
      error: processedIssues,
      success: false
    }, 400);
  }
  return result.value;
}), "sValidator");

// ../../../work/main/node_modules/hono-openapi/dist/index.js
init_dist3();

// ../../../work/main/node_modules/hono-openapi/node_modules/@standard-community/standard-openapi/dist/index.js
init_index_DZEfthgZ();

// ../../../work/main/node_modules/hono-openapi/dist/index.js
var uniqueSymbol = /* @__PURE__ */ Symbol("openapi");
var VALIDATION_MARKER = "__HonoOpenAPIValidator__";
var ALLOWED_METHODS = [
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE"
];
var toOpenAPIPathSegment = /* @__PURE__ */ __name((segment) => {
  let tmp = segment;
  if (tmp.startsWith(":")) {
    const match2 = tmp.match(/^:([^{?]+)(?:{(.+)})?(\?)?$/);
    if (match2) {
      const paramName = match2[1];
      tmp = `{${paramName}}`;
    } else {
      tmp = tmp.slice(1, tmp.length);
      if (tmp.endsWith("?")) tmp = tmp.slice(0, -1);
      tmp = `{${tmp}}`;
    }
  }
  return tmp;
}, "toOpenAPIPathSegment");
var toOpenAPIPath = /* @__PURE__ */ __name((path) => path.split("/").map(toOpenAPIPathSegment).join("/"), "toOpenAPIPath");
var toPascalCase = /* @__PURE__ */ __name((text2) => text2.split(/[\W_]+/).filter(Boolean).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(""), "toPascalCase");
var generateOperationId = /* @__PURE__ */ __name((route) => {
  let operationId = route.method.toLowerCase();
  if (route.path === "/") return `${operationId}Index`;
  for (const segment of route.path.split("/")) {
    const openApiPathSegment = toOpenAPIPathSegment(segment);
    if (openApiPathSegment.charCodeAt(0) === 123) {
      operationId += `By${toPascalCase(openApiPathSegment.slice(1, -1))}`;
    } else {
      operationId += toPascalCase(openApiPathSegment);
    }
  }
  return operationId;
}, "generateOperationId");
var paramKey = /* @__PURE__ */ __name((param) => "$ref" in param ? param.$ref : `${param.in} ${param.name}`, "paramKey");
function mergeParameters(...params) {
  const merged = params.flatMap((x) => x ?? []).reduce((acc, param) => {
    acc.set(paramKey(param), param);
    return acc;
  }, /* @__PURE__ */ new Map());
  return Array.from(merged.values());
}
__name(mergeParameters, "mergeParameters");
var specsByPathContext = /* @__PURE__ */ new Map();
function getPathContext(path, pathContext) {
  const context = [];
  for (const [key, data] of pathContext) {
    if (!data) continue;
    const prefix = key.endsWith("/*") ? key.slice(0, -2) : key;
    if (path === prefix || path.startsWith(`${prefix}/`)) {
      context.push(data);
    }
  }
  return context;
}
__name(getPathContext, "getPathContext");
function mergeRequestBodies(previous2, current) {
  if (!previous2 || !current || "$ref" in previous2 || "$ref" in current) {
    return current;
  }
  return {
    ...previous2,
    ...current,
    content: {
      ...previous2.content,
      ...current.content
    }
  };
}
__name(mergeRequestBodies, "mergeRequestBodies");
function mergeSpecs(route, ...specs) {
  return specs.reduce(
    (prev, spec) => {
      if (!spec || !prev) return prev;
      for (const [key, value] of Object.entries(spec)) {
        if (value == null) continue;
        if (key in prev && (typeof value === "object" || typeof value === "function" && key === "operationId")) {
          if (Array.isArray(value)) {
            const values = [...prev[key] ?? [], ...value];
            if (key === "tags") {
              prev[key] = Array.from(new Set(values));
            } else if (key === "parameters") {
              prev[key] = mergeParameters(values);
            } else {
              prev[key] = values;
            }
          } else if (typeof value === "function") {
            prev[key] = value(route);
          } else {
            if (key === "parameters") {
              prev[key] = mergeParameters(prev[key], value);
            } else if (key === "requestBody") {
              prev.requestBody = mergeRequestBodies(
                prev.requestBody,
                value
              );
            } else {
              prev[key] = {
                ...prev[key],
                ...value
              };
            }
          }
        } else {
          prev[key] = value;
        }
      }
      return prev;
    },
    {
      operationId: generateOperationId(route)
    }
  );
}
__name(mergeSpecs, "mergeSpecs");
function registerSchemaPath({ route, specs, paths }, pathContext = specsByPathContext) {
  const path = toOpenAPIPath(route.path);
  const method = route.method.toLowerCase();
  if (method === "all") {
    if (!specs) return;
    if (pathContext.has(path)) {
      const prev = pathContext.get(path) ?? {};
      pathContext.set(path, mergeSpecs(route, prev, specs));
    } else {
      pathContext.set(path, specs);
    }
  } else {
    const context = getPathContext(path, pathContext);
    if (!(path in paths)) {
      paths[path] = {};
    }
    if (paths[path]) {
      paths[path][method] = mergeSpecs(
        route,
        ...context,
        paths[path]?.[method],
        specs
      );
    }
  }
}
__name(registerSchemaPath, "registerSchemaPath");
function removeExcludedPaths(paths, ctx) {
  const { exclude, excludeStaticFile } = ctx.options;
  const newPaths = {};
  const _exclude = Array.isArray(exclude) ? exclude : [exclude];
  for (const [key, value] of Object.entries(paths)) {
    if (value == null) continue;
    const isExplicitlyExcluded = _exclude.some((x) => {
      if (typeof x === "string") return key === x;
      return x.test(key);
    });
    if (isExplicitlyExcluded) continue;
    const isWildcardWithoutParameters = key.includes("*") && !key.includes("{");
    if (isWildcardWithoutParameters) continue;
    if (excludeStaticFile) {
      const hasPathParameters = key.includes("{");
      const lastSegment = key.split("/").pop() || "";
      const looksLikeStaticFile = lastSegment.includes(".");
      const shouldExcludeAsStaticFile = !hasPathParameters && looksLikeStaticFile;
      if (shouldExcludeAsStaticFile) continue;
    }
    for (const method of Object.keys(value)) {
      const schema = value[method];
      if (schema == null) continue;
      const hasValidation = schema[VALIDATION_MARKER] === true;
      delete schema[VALIDATION_MARKER];
      if (key.includes("{")) {
        schema.parameters = schema.parameters ? [...schema.parameters] : [];
        const pathParameters = key.split("/").filter(
          (x) => x.startsWith("{") && !schema.parameters.find(
            (params) => params.in === "path" && params.name === x.slice(1, x.length - 1)
          )
        );
        for (const param of pathParameters) {
          const paramName = param.slice(1, param.length - 1);
          const index = schema.parameters.findIndex(
            (x) => {
              if ("$ref" in x) {
                const pos = x.$ref.split("/").pop();
                if (pos) {
                  const param2 = ctx.components.parameters?.[pos];
                  if (param2 && !("$ref" in param2)) {
                    return param2.in === "path" && param2.name === paramName;
                  }
                }
                return false;
              }
              return x.in === "path" && x.name === paramName;
            }
          );
          if (index === -1) {
            schema.parameters.push({
              schema: { type: "string" },
              in: "path",
              name: paramName,
              required: true
            });
          }
        }
      }
      if (!schema.responses) {
        schema.responses = {
          200: {}
        };
      }
      if (hasValidation && ctx.options.defaultValidationErrorResponse !== false && !schema.responses["400"]) {
        const errorResponse2 = ctx.options.defaultValidationErrorResponse;
        if (typeof errorResponse2 === "object") {
          schema.responses["400"] = structuredClone(errorResponse2);
        } else if (ctx.validationErrorResponse) {
          schema.responses["400"] = structuredClone(
            ctx.validationErrorResponse
          );
        }
      }
    }
    const filteredValue = {};
    for (const method of Object.keys(value)) {
      if (value[method] != null) {
        filteredValue[method] = value[method];
      }
    }
    if (Object.keys(filteredValue).length > 0) {
      newPaths[key] = filteredValue;
    }
  }
  return newPaths;
}
__name(removeExcludedPaths, "removeExcludedPaths");
var DEFAULT_OPTIONS3 = {
  documentation: {},
  excludeStaticFile: true,
  exclude: [],
  excludeMethods: ["OPTIONS"],
  excludeTags: [],
  defaultValidationErrorResponse: true
};
var DEFAULT_VALIDATION_ERROR = {
  description: "Validation Error",
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: {
          success: { type: "boolean", enum: [false] },
          error: {
            type: "array",
            items: {}
          },
          data: {}
        },
        required: ["success", "error", "data"]
      }
    }
  }
};
function openAPIRouteHandler(hono, options) {
  let specs;
  return async (c) => {
    if (specs) return c.json(specs);
    specs = await generateSpecs(hono, options, c);
    return c.json(specs);
  };
}
__name(openAPIRouteHandler, "openAPIRouteHandler");
async function generateSpecs(hono, options = DEFAULT_OPTIONS3, c) {
  const ctx = {
    components: {},
    // @ts-expect-error
    options: {
      ...DEFAULT_OPTIONS3,
      ...options
    },
    validationErrorResponse: DEFAULT_VALIDATION_ERROR
  };
  const _documentation = ctx.options.documentation ?? {};
  const documentation = {
    ..._documentation,
    components: _documentation.components && { ..._documentation.components }
  };
  const paths = await generatePaths(hono, ctx);
  for (const path in paths) {
    for (const method in paths[path]) {
      const isHidden = getHiddenValue({
        valueOrFunc: paths[path][method]?.hide,
        method,
        path,
        c
      });
      if (isHidden) {
        paths[path][method] = void 0;
      }
    }
  }
  const resolvedDocumentation = documentation.components?.responses ? await resolveResponseSchemas(documentation.components.responses) : void 0;
  if (resolvedDocumentation && documentation.components) {
    documentation.components.responses = resolvedDocumentation.responses;
  }
  const components = mergeComponentsObjects(
    documentation.components,
    resolvedDocumentation?.components,
    ctx.components
  );
  return {
    openapi: "3.1.0",
    ...documentation,
    tags: documentation.tags?.filter(
      (tag2) => !ctx.options.excludeTags?.includes(tag2?.name)
    ),
    info: {
      title: "Hono Documentation",
      description: "Development documentation",
      version: "0.0.0",
      ...documentation.info
    },
    paths: {
      ...removeExcludedPaths(paths, ctx),
      ...documentation.paths
    },
    components
  };
}
__name(generateSpecs, "generateSpecs");
async function generatePaths(hono, ctx) {
  const paths = {};
  const pathContext = /* @__PURE__ */ new Map();
  for (const route of hono.routes) {
    const middlewareHandler = findTargetHandler(route.handler)[uniqueSymbol];
    if (!middlewareHandler) {
      if (ctx.options.includeEmptyPaths) {
        registerSchemaPath(
          {
            route,
            paths
          },
          pathContext
        );
      }
      continue;
    }
    const routeMethod = route.method;
    if (routeMethod !== "ALL") {
      if (ctx.options.excludeMethods?.includes(routeMethod)) {
        continue;
      }
      if (!ALLOWED_METHODS.includes(routeMethod)) {
        continue;
      }
    }
    const defaultOptionsForThisMethod = ctx.options.defaultOptions?.[routeMethod] && { ...ctx.options.defaultOptions[routeMethod] };
    const { schema: routeSpecs, components = {} } = await getSpec(
      middlewareHandler,
      defaultOptionsForThisMethod,
      ctx.components.parameters
    );
    ctx.components = mergeComponentsObjects(ctx.components, components);
    registerSchemaPath(
      {
        route,
        specs: routeSpecs,
        paths
      },
      pathContext
    );
  }
  return paths;
}
__name(generatePaths, "generatePaths");
function getHiddenValue(options) {
  const { valueOrFunc, c, method, path } = options;
  if (valueOrFunc != null) {
    if (typeof valueOrFunc === "boolean") {
      return valueOrFunc;
    }
    if (typeof valueOrFunc === "function") {
      return valueOrFunc({ c, method, path });
    }
  }
  return false;
}
__name(getHiddenValue, "getHiddenValue");
async function getSpec(middlewareHandler, defaultOptions, parameterComponents) {
  if ("spec" in middlewareHandler) {
    const tmp = {
      ...defaultOptions,
      ...middlewareHandler.spec,
      responses: {
        ...defaultOptions?.responses,
        ...middlewareHandler.spec.responses
      }
    };
    let components = {};
    if (tmp.responses) {
      const resolved = await resolveResponseSchemas(tmp.responses);
      tmp.responses = resolved.responses;
      components = resolved.components;
    }
    if (tmp.requestBody && "content" in tmp.requestBody) {
      const resolved = await resolveContentSchemas(tmp.requestBody.content);
      tmp.requestBody = {
        ...tmp.requestBody,
        content: resolved.content
      };
      components = mergeComponentsObjects(components, resolved.components);
    }
    return { schema: tmp, components };
  }
  const result = await middlewareHandler.toOpenAPISchema();
  liftSchemaDefs(result);
  const docs = {
    ...defaultOptions,
    // Mark this operation as validator-derived so a default 400 validation
    // error response can be auto-injected later (see removeExcludedPaths).
    [VALIDATION_MARKER]: true
  };
  if (middlewareHandler.target === "form" || middlewareHandler.target === "json") {
    const media = middlewareHandler.options?.media ?? (middlewareHandler.target === "json" ? "application/json" : "multipart/form-data");
    if (!docs.requestBody || !("content" in docs.requestBody) || !docs.requestBody.content) {
      docs.requestBody = {
        required: true,
        content: {
          [media]: {
            schema: result.schema
          }
        }
      };
    } else {
      docs.requestBody.content[media] = {
        schema: result.schema
      };
    }
  } else {
    let parameters = [];
    if ("$ref" in result.schema) {
      const ref = result.schema.$ref;
      const pos = ref.split("/").pop();
      if (pos && result.components?.schemas?.[pos]) {
        const schema = result.components.schemas[pos];
        const generatedParameters = generateParameters(
          middlewareHandler.target,
          schema,
          result.components.schemas
        );
        const singleParameter = generatedParameters.length === 1 ? generatedParameters[0] : void 0;
        const existingParameter = parameterComponents?.[pos];
        if (singleParameter && (!existingParameter || "in" in existingParameter && existingParameter.in === singleParameter.in && existingParameter.name === singleParameter.name)) {
          result.components.parameters ??= {};
          result.components.parameters[pos] = singleParameter;
          parameters.push({ $ref: `#/components/parameters/${pos}` });
          delete result.components.schemas[pos];
        } else {
          parameters = generatedParameters;
        }
      }
    } else {
      parameters = generateParameters(
        middlewareHandler.target,
        result.schema,
        result.components?.schemas
      );
    }
    docs.parameters = parameters;
  }
  return { schema: docs, components: result.components };
}
__name(getSpec, "getSpec");
function generateParameters(target, schema, schemas) {
  const parameters = [];
  for (const [key, property] of collectParameterProperties(schema, schemas)) {
    const def = {
      in: target === "param" ? "path" : target,
      name: key,
      // @ts-expect-error ParameterObject uses the OpenAPI 3.0 schema type.
      schema: property.schema
    };
    if (property.required) {
      def.required = true;
    }
    if (def.schema && "description" in def.schema && def.schema.description) {
      def.description = def.schema.description;
      def.schema = { ...def.schema, description: void 0 };
    }
    parameters.push(def);
  }
  return parameters;
}
__name(generateParameters, "generateParameters");
function collectParameterProperties(schema, schemas) {
  const properties = /* @__PURE__ */ new Map();
  const resolvingRefs = /* @__PURE__ */ new Set();
  const collect = /* @__PURE__ */ __name((current) => {
    for (const [key, value] of Object.entries(current.properties ?? {})) {
      const existing = properties.get(key);
      properties.set(key, {
        schema: existing ? { allOf: [existing.schema, value] } : value,
        required: Boolean(current.required?.includes(key)) || existing?.required
      });
    }
    for (const member of current.allOf ?? []) {
      if ("$ref" in member) {
        const prefix = "#/components/schemas/";
        if (!member.$ref.startsWith(prefix)) continue;
        const name = member.$ref.slice(prefix.length).replaceAll("~1", "/").replaceAll("~0", "~");
        const referencedSchema = schemas?.[name];
        if (referencedSchema && !resolvingRefs.has(name)) {
          resolvingRefs.add(name);
          collect(referencedSchema);
          resolvingRefs.delete(name);
        }
      } else {
        collect(member);
      }
    }
  }, "collect");
  collect(schema);
  return properties;
}
__name(collectParameterProperties, "collectParameterProperties");
async function resolveContentSchemas(content) {
  let components = {};
  const resolvedContent = {};
  for (const [contentKey, raw2] of Object.entries(content)) {
    if (!raw2) continue;
    if (raw2.schema && "toOpenAPISchema" in raw2.schema) {
      const result = await raw2.schema.toOpenAPISchema();
      liftSchemaDefs(result);
      resolvedContent[contentKey] = {
        ...raw2,
        schema: result.schema
      };
      if (result.components) {
        components = mergeComponentsObjects(components, result.components);
      }
    } else {
      resolvedContent[contentKey] = raw2;
    }
  }
  return { content: resolvedContent, components };
}
__name(resolveContentSchemas, "resolveContentSchemas");
async function resolveResponseSchemas(responses) {
  let components = {};
  const resolvedResponses = {};
  for (const [key, response] of Object.entries(responses)) {
    if (!response || !("content" in response) || !response.content) {
      resolvedResponses[key] = response;
      continue;
    }
    const resolved = await resolveContentSchemas(response.content);
    resolvedResponses[key] = {
      ...response,
      content: resolved.content
    };
    components = mergeComponentsObjects(components, resolved.components);
  }
  return { responses: resolvedResponses, components };
}
__name(resolveResponseSchemas, "resolveResponseSchemas");
function liftSchemaDefs(result) {
  const defs = result.schema.$defs;
  if (!defs || typeof defs !== "object") return;
  result.components ??= {};
  result.components.schemas = {
    ...defs,
    ...result.components.schemas
  };
  delete result.schema.$defs;
}
__name(liftSchemaDefs, "liftSchemaDefs");
function mergeComponentsObjects(...components) {
  return components.reduce(
    (prev, component, index) => {
      if (component == null || index === 0) return prev;
      if (prev.schemas && Object.keys(prev.schemas).length > 0 || component.schemas && Object.keys(component.schemas).length > 0) {
        prev.schemas = {
          ...prev.schemas,
          ...component.schemas
        };
      }
      if (prev.parameters && Object.keys(prev.parameters).length > 0 || component.parameters && Object.keys(component.parameters).length > 0) {
        prev.parameters = {
          ...prev.parameters,
          ...component.parameters
        };
      }
      return prev;
    },
    components[0] ?? {}
  );
}
__name(mergeComponentsObjects, "mergeComponentsObjects");
var arktypeMorphFallback = /* @__PURE__ */ __name((ctx) => ctx.base, "arktypeMorphFallback");
var zodV4DateOverride = /* @__PURE__ */ __name((ctx) => {
  if (ctx.zodSchema._zod.def.type === "date") {
    ctx.jsonSchema.type = "string";
    ctx.jsonSchema.format = "date-time";
  }
}, "zodV4DateOverride");
function resolver(schema, userDefinedOptions) {
  const vendor = schema["~standard"].vendor;
  return {
    vendor,
    validate: schema["~standard"].validate,
    toJSONSchema: /* @__PURE__ */ __name((customOptions) => toJsonSchema2(schema, { ...userDefinedOptions, ...customOptions }), "toJSONSchema"),
    toOpenAPISchema: /* @__PURE__ */ __name((customOptions) => toOpenAPISchema(schema, {
      ...userDefinedOptions,
      ...customOptions,
      ...vendor === "arktype" ? injectArktypeFallback(userDefinedOptions, customOptions) : void 0,
      ...vendor === "zod" ? injectZodV4DateOverride(schema, userDefinedOptions, customOptions) : void 0
    }), "toOpenAPISchema")
  };
}
__name(resolver, "resolver");
function injectArktypeFallback(userDefined, custom) {
  const userNested = userDefined?.options;
  const customNested = custom?.options;
  if (userDefined?.fallback || userNested?.fallback || custom?.fallback || customNested?.fallback) {
    return void 0;
  }
  return {
    options: {
      fallback: arktypeMorphFallback,
      ...userNested,
      ...customNested
    }
  };
}
__name(injectArktypeFallback, "injectArktypeFallback");
function injectZodV4DateOverride(schema, userDefined, custom) {
  if (!("_zod" in schema)) return void 0;
  const userNested = userDefined?.options;
  const customNested = custom?.options;
  if (userDefined?.override || userNested?.override || custom?.override || customNested?.override) {
    return void 0;
  }
  return {
    options: {
      unrepresentable: "any",
      override: zodV4DateOverride,
      ...userNested,
      ...customNested
    }
  };
}
__name(injectZodV4DateOverride, "injectZodV4DateOverride");
function validator2(target, schema, hook, options) {
  const middleware = sValidator(target, schema, hook);
  Object.defineProperty(middleware, "name", {
    value: "validator",
    configurable: true
  });
  return Object.assign(middleware, {
    [uniqueSymbol]: {
      target,
      ...resolver(schema, options),
      options
    }
  });
}
__name(validator2, "validator");
function describeRoute(spec) {
  const middleware = /* @__PURE__ */ __name(async (_c, next) => {
    await next();
  }, "middleware");
  Object.defineProperty(middleware, "name", {
    value: "describeRoute",
    configurable: true
  });
  return Object.assign(middleware, {
    [uniqueSymbol]: {
      spec
    }
  });
}
__name(describeRoute, "describeRoute");

// src/http/http.ts
var MAX_BODY_BYTES = 16 * 1024;
var JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
var requireJson = createMiddleware(async (c, next) => {
  if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
    throw new ApiError("unsupported_media_type", "Send the request body as JSON, with Content-Type: application/json.");
  }
  await next();
});
var limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: /* @__PURE__ */ __name(() => {
    throw new ApiError("payload_too_large", "Request bodies are limited to 16 KiB.");
  }, "onError")
});
var parseJson = createMiddleware(async (c, next) => {
  let body;
  const text2 = await c.req.text();
  try {
    body = JSON.parse(text2);
  } catch (err) {
    throw new ApiError("invalid_json", `The request body is not valid JSON${whereJsonFails(err, text2)}.`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    refuse2([{ path: "", message: notAnObject(body) }], 1);
  }
  await next();
});
var acceptAliases = /* @__PURE__ */ __name((aliases) => createMiddleware(async (c, next) => {
  const body = await c.req.json();
  let renamed;
  for (const [alias, name] of Object.entries(aliases)) {
    if (!Object.hasOwn(body, alias)) continue;
    if (Object.hasOwn(body, name) && body[name] !== body[alias]) continue;
    const { [alias]: value, ...rest } = renamed ?? body;
    renamed = { ...rest, [name]: value };
  }
  if (renamed) c.req.bodyCache.text = Promise.resolve(JSON.stringify(renamed));
  await next();
}), "acceptAliases");
function whereJsonFails(err, text2) {
  const message2 = err instanceof Error ? err.message : "";
  const position = /at position (\d+)/.exec(message2);
  if (position) {
    const before = text2.slice(0, Number(position[1]));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    return ` at line ${line}, column ${column}`;
  }
  return text2.trim() === "" ? ": it is empty" : /end of (JSON )?input|Unterminated/i.test(message2) ? ": it ends too early" : "";
}
__name(whereJsonFails, "whereJsonFails");
var MAX_DETAILS = 20;
function issuePath(path) {
  if (!path || path.length === 0) return "";
  return path.map((segment) => String(segment.key)).join(".");
}
__name(issuePath, "issuePath");
function jsonTypeOf(value) {
  if (value === void 0) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
__name(jsonTypeOf, "jsonTypeOf");
var notAnObject = /* @__PURE__ */ __name((body) => `the body must be a JSON object, not ${jsonTypeOf(body)}`, "notAnObject");
var TYPE_WORDS = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  object: "an object",
  strict_object: "an object",
  array: "an array",
  integer: "an integer"
};
var isUnknownField = /* @__PURE__ */ __name((issue) => issue.kind === "schema" && issue.type === "strict_object" && issue.expected === "never", "isUnknownField");
var isDefaultMessage = /* @__PURE__ */ __name((issue) => issue.message === (issue.kind === "schema" ? `expected ${issue.expected ?? issue.type}` : `invalid ${issue.type}`), "isDefaultMessage");
function plainMessage(issue) {
  const path = issuePath(issue.path);
  const field = path || "the body";
  if (isUnknownField(issue)) return `unknown field ${field}`;
  if (!isDefaultMessage(issue)) {
    return /^must\b/.test(issue.message) ? `${field} ${issue.message}` : issue.message;
  }
  if (issue.kind === "schema") {
    if (issue.input === void 0 && path) return `${field} is required`;
    if (!path && TYPE_WORDS[issue.type] === "an object") return notAnObject(issue.input);
    const wanted = TYPE_WORDS[issue.type] ?? (issue.type === "literal" || issue.type === "picklist" ? `one of ${issue.expected}` : issue.type === "union" || issue.type === "variant" ? "one of the documented shapes" : issue.expected ?? issue.type);
    return `${field} must be ${wanted}, not ${jsonTypeOf(issue.input)}`;
  }
  switch (issue.type) {
    case "integer":
      return `${field} must be an integer`;
    case "min_value":
      return `${field} must be at least ${String(issue.requirement)}`;
    case "max_value":
      return `${field} must be at most ${String(issue.requirement)}`;
    case "min_length":
      return `${field} must have at least ${String(issue.requirement)} ${Array.isArray(issue.input) ? "entries" : "characters"}`;
    case "max_length":
      return `${field} must have at most ${String(issue.requirement)} ${Array.isArray(issue.input) ? "entries" : "characters"}`;
    case "regex":
      return `${field} is not in the expected format`;
    default:
      return `${field} is not valid`;
  }
}
__name(plainMessage, "plainMessage");
var fold = /* @__PURE__ */ __name((name) => name.toLowerCase().replace(/[_-]/g, ""), "fold");
var ALIASES = /* @__PURE__ */ new Map([
  ["receiptid", ["id"]],
  ["transferid", ["id"]],
  // An OTP under another name would be dropped, and the pay answered otp_required.
  ["otpcode", ["otp"]],
  ["code", ["otp"]],
  // The card token sent flat, beside the card object it belongs in.
  ["cardtoken", ["card.token"]],
  ["token", ["card.token"]]
]);
function editDistance(a, b) {
  let before = [];
  let previous2 = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(previous2[j] + 1, current[j - 1] + 1, previous2[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, before[j - 2] + 1);
      current.push(distance);
    }
    before = previous2;
    previous2 = current;
  }
  return previous2[b.length];
}
__name(editDistance, "editDistance");
var withinReach = /* @__PURE__ */ __name((known) => known.length <= 4 ? 1 : 2, "withinReach");
function suggestion(name, known) {
  const folded = fold(name);
  const same = known.find((field) => fold(field) === folded);
  if (same) return same;
  const alias = ALIASES.get(folded)?.find((field) => known.includes(field.split(".")[0]));
  if (alias) return alias;
  let nearest;
  let nearestDistance = Number.POSITIVE_INFINITY;
  for (const field of known) {
    const target = fold(field);
    const reach = withinReach(target);
    if (Math.abs(target.length - folded.length) > reach) continue;
    const distance = editDistance(folded, target);
    if (distance <= reach && distance < nearestDistance) {
      nearest = field;
      nearestDistance = distance;
    }
  }
  return nearest;
}
__name(suggestion, "suggestion");
function unwrapSchema(schema) {
  let current = schema;
  for (let i = 0; current?.wrapped && i < 8; i++) current = current.wrapped;
  return current;
}
__name(unwrapSchema, "unwrapSchema");
function objectShape(schema) {
  const shape = unwrapSchema(schema);
  if (shape?.entries) return { entries: shape.entries, strict: shape.type === "strict_object" };
  if ((shape?.type === "union" || shape?.type === "variant") && shape.options) {
    const options = shape.options.map(objectShape);
    if (options.length === 0 || options.some((option) => option === void 0)) return void 0;
    const entries = {};
    for (const option of options) for (const [key, entry] of Object.entries(option?.entries ?? {})) entries[key] ??= entry;
    return { entries, strict: options.every((option) => option?.strict) };
  }
  return void 0;
}
__name(objectShape, "objectShape");
function unknownFields(schema, value, path = [], found = []) {
  const shape = unwrapSchema(schema);
  if (!shape || value === null || typeof value !== "object" || found.length > MAX_DETAILS) return found;
  if (shape.type === "array" && shape.item) {
    if (Array.isArray(value)) for (const [index, item] of value.entries()) unknownFields(shape.item, item, [...path, String(index)], found);
    return found;
  }
  const object2 = objectShape(shape);
  if (!object2) return found;
  const known = Object.keys(object2.entries);
  for (const [key, child] of Object.entries(value)) {
    if (found.length > MAX_DETAILS) break;
    if (Object.hasOwn(object2.entries, key)) {
      unknownFields(object2.entries[key], child, [...path, key], found);
      continue;
    }
    if (!object2.strict) continue;
    const at = [...path, key].join(".");
    const right = suggestion(key, known);
    const message2 = right ? `unknown field ${at}: did you mean ${[...path, right].join(".")}?` : `unknown field ${at}`;
    found.push({ at, path: String(redact(at)), message: String(redact(message2)) });
  }
  return found;
}
__name(unknownFields, "unknownFields");
function refuse2(details, total) {
  const message2 = total > MAX_DETAILS ? `The request body does not match the schema: more than ${MAX_DETAILS} problems, the first ${MAX_DETAILS} are listed.` : "The request body does not match the schema.";
  throw new ApiError("invalid_request", message2, { details: details.slice(0, MAX_DETAILS) });
}
__name(refuse2, "refuse");
var jsonBody = /* @__PURE__ */ __name((schema) => validator2("json", schema, (result, _c) => {
  if (!result.success) refuseBody(schema, result.data, result.error);
}), "jsonBody");
function refuseBody(schema, value, valibotIssues) {
  const unknown = unknownFields(schema, value);
  const named = new Set(unknown.map(({ at }) => at));
  const issues = valibotIssues.filter((issue) => !(isUnknownField(issue) && named.has(issuePath(issue.path))));
  const details = [
    ...unknown.map(({ path, message: message2 }) => ({ path, message: message2 })),
    ...issues.slice(0, MAX_DETAILS).map((issue) => ({
      path: String(redact(issuePath(issue.path))),
      message: String(redact(plainMessage(issue)))
    }))
  ];
  refuse2(details, unknown.length + issues.length);
}
__name(refuseBody, "refuseBody");

// src/statements/days.ts
function statementTimezone(env) {
  const zone = (env.STATEMENT_TIMEZONE ?? "").trim() || "Asia/Tashkent";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone;
  } catch {
    return "Asia/Tashkent";
  }
}
__name(statementTimezone, "statementTimezone");
function checkShare(env) {
  const n = Number(env.STATEMENT_CHECK_SHARE);
  if (env.STATEMENT_CHECK_SHARE !== void 0 && env.STATEMENT_CHECK_SHARE.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 1) return n;
  return env.ENVIRONMENT === "development" ? 1 : 0.01;
}
__name(checkShare, "checkShare");
function parts(at, zone) {
  const out = {};
  for (const part of new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit"
  }).formatToParts(at)) {
    if (part.type !== "literal") out[part.type] = Number(part.value);
  }
  return out;
}
__name(parts, "parts");
function offsetMs2(at, zone) {
  const p = parts(at, zone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at / 1e3) * 1e3;
}
__name(offsetMs2, "offsetMs");
function dateIn(at, zone) {
  const p = parts(at, zone);
  return `${String(p.year).padStart(4, "0")}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
}
__name(dateIn, "dateIn");
function localTime(at, zone) {
  const p = parts(at, zone);
  const two = /* @__PURE__ */ __name((n) => String(n).padStart(2, "0"), "two");
  return `${dateIn(at, zone)} ${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}
__name(localTime, "localTime");
function midnight(date, zone) {
  const [y, m, d] = date.split("-").map(Number);
  const guess = Date.UTC(y, m - 1, d);
  let at = guess - offsetMs2(guess, zone);
  at = guess - offsetMs2(at, zone);
  return at;
}
__name(midnight, "midnight");
function dayBounds(date, zone) {
  const [y, m, d] = date.split("-").map(Number);
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  return { from: midnight(date, zone), to: midnight(next, zone) };
}
__name(dayBounds, "dayBounds");
function isDate(text2) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text2)) return false;
  return (/* @__PURE__ */ new Date(`${text2}T00:00:00Z`)).toISOString().slice(0, 10) === text2;
}
__name(isDate, "isDate");

// src/statements/format.ts
var UTF8_BOM = "\uFEFF";
var CSV_HEADER = [
  "record",
  "date",
  "time",
  "id",
  "kind",
  "tid",
  "owner",
  "merchant_id",
  "change",
  "state",
  "amount_tiyin",
  "amount_sum",
  "commission_tiyin",
  "commission_sum",
  "fiscal_sign",
  "count",
  "event_id",
  "note"
];
var statementKeys = /* @__PURE__ */ __name((date) => ({
  csv: `statements/${date}.csv`,
  json: `statements/${date}.json`,
  summary: `statements/${date}.summary.json`
}), "statementKeys");
function sumOf(tiyin) {
  const negative = tiyin < 0n;
  const abs = negative ? -tiyin : tiyin;
  return `${negative ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}
__name(sumOf, "sumOf");
function cell(value) {
  if (typeof value === "number") return String(value);
  let text2 = value;
  if (/^[=+\-@\t\r]/.test(text2)) text2 = `'${text2}`;
  return /[",\r\n]/.test(text2) ? `"${text2.replaceAll('"', '""')}"` : text2;
}
__name(cell, "cell");
var csvRow = /* @__PURE__ */ __name((cells) => `${cells.map(cell).join(",")}\r
`, "csvRow");

// src/statements/api.ts
var SETTLE_MS = 10 * 6e4;
var STATEMENT_CRON = "10 * * * *";
var stubOf = /* @__PURE__ */ __name((env, date) => env.STATEMENT.get(env.STATEMENT.idFromName(date)), "stubOf");
async function kickStatements(env, now) {
  const zone = statementTimezone(env);
  const today = dayBounds(dateIn(now, zone), zone);
  if (now < today.from + SETTLE_MS) return null;
  return stubOf(env, dateIn(today.from - 1, zone)).ensure(dateIn(today.from - 1, zone), now);
}
__name(kickStatements, "kickStatements");
function rebuildableDate(env, date, now) {
  if (!isDate(date)) return "date must be a date, YYYY-MM-DD";
  const zone = statementTimezone(env);
  const { from } = dayBounds(date, zone);
  if (from > now) return "date must not be after today";
  if (from < now - retentionPolicy(env).deliveredEventsMs + 864e5)
    return "date is older than the event log keeps a day whole (EVENTS_DELIVERED_RETENTION_DAYS)";
  return null;
}
__name(rebuildableDate, "rebuildableDate");
async function rebuildStatement(env, date) {
  const now = clock.now();
  const problem = rebuildableDate(env, date, now);
  if (problem) throw new ApiError("invalid_request", "The request does not match the schema.", { details: [{ path: "date", message: problem }] });
  log("info", "statement_rebuild_requested", { date });
  return stubOf(env, date).rebuild(date, now);
}
__name(rebuildStatement, "rebuildStatement");
async function listStatements(env, after, limit) {
  const dates = [];
  let cursor;
  do {
    const listed = await env.STATEMENTS.list({ prefix: "statements/", cursor });
    for (const object2 of listed.objects) {
      const match2 = /^statements\/(\d{4}-\d{2}-\d{2})\.summary\.json$/.exec(object2.key);
      if (match2) dates.push(match2[1]);
    }
    cursor = listed.truncated ? listed.cursor : void 0;
  } while (cursor);
  const newest = dates.sort().reverse().filter((date) => after === void 0 || date < after);
  const statements = [];
  for (const date of newest.slice(0, limit)) {
    const object2 = await env.STATEMENTS.get(statementKeys(date).summary);
    if (object2) statements.push(await object2.json());
  }
  return { statements, has_more: newest.length > limit };
}
__name(listStatements, "listStatements");
async function statementFile(c) {
  const match2 = /^(\d{4}-\d{2}-\d{2})\.(csv|json)$/.exec(c.req.param("file") ?? "");
  if (!match2 || !isDate(match2[1]))
    throw new ApiError("not_found", "No such statement: ask for statements/YYYY-MM-DD.csv or .json (statements/list names the days written).");
  const [, date, format] = match2;
  const object2 = await c.env.STATEMENTS.get(statementKeys(date)[format]);
  if (!object2)
    throw new ApiError("not_found", `No statement of ${date} is written (statements/list names the days written; statements/rebuild writes one).`);
  return new Response(object2.body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json",
      "content-disposition": `attachment; filename="statement-${date}.${format}"`,
      "content-length": String(object2.size),
      etag: object2.httpEtag,
      "x-request-id": c.var.requestId
    }
  });
}
__name(statementFile, "statementFile");

// ../../../work/main/node_modules/jose/dist/webapi/lib/buffer_utils.js
var encoder = new TextEncoder();
var decoder = new TextDecoder();
var strictDecoder = new TextDecoder("utf-8", { fatal: true });
var UINT32_RANGE = 2 ** 32;
function concat(...buffers) {
  const size = buffers.reduce((acc, { length }) => acc + length, 0), buf = new Uint8Array(size);
  let i = 0;
  for (const buffer of buffers)
    buf.set(buffer, i), i += buffer.length;
  return buf;
}
__name(concat, "concat");
var NON_ASCII = /[^\x00-\x7f]/;
function encode(string2) {
  if (typeof string2 == "string" && string2.length >= 128) {
    if (NON_ASCII.test(string2))
      throw new TypeError("non-ASCII string encountered in encode()");
    return encoder.encode(string2);
  }
  const bytes2 = new Uint8Array(string2.length);
  for (let i = 0; i < string2.length; i++) {
    const code = string2.charCodeAt(i);
    if (code > 127)
      throw new TypeError("non-ASCII string encountered in encode()");
    bytes2[i] = code;
  }
  return bytes2;
}
__name(encode, "encode");
function encodeBase643(input, url = false) {
  if (Uint8Array.prototype.toBase64)
    return input.toBase64({ alphabet: url ? "base64url" : "base64", omitPadding: url });
  const CHUNK_SIZE = 32768, arr = [];
  for (let i = 0; i < input.length; i += CHUNK_SIZE)
    arr.push(String.fromCharCode.apply(null, input.subarray(i, i + CHUNK_SIZE)));
  const encoded = btoa(arr.join(""));
  return url ? encoded.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_") : encoded;
}
__name(encodeBase643, "encodeBase64");
function decodeBase642(encoded, url = false) {
  if (Uint8Array.fromBase64)
    return Uint8Array.fromBase64(encoded, { alphabet: url ? "base64url" : "base64" });
  if (url) {
    if (encoded.includes("+") || encoded.includes("/"))
      throw new TypeError("Invalid base64url");
    encoded = encoded.replace(/-/g, "+").replace(/_/g, "/");
  }
  const binary = atob(encoded), bytes2 = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++)
    bytes2[i] = binary.charCodeAt(i);
  return bytes2;
}
__name(decodeBase642, "decodeBase64");

// ../../../work/main/node_modules/jose/dist/webapi/util/errors.js
var errors_exports = {};
__export(errors_exports, {
  JOSEAlgNotAllowed: () => JOSEAlgNotAllowed,
  JOSEError: () => JOSEError,
  JOSENotSupported: () => JOSENotSupported,
  JWEDecryptionFailed: () => JWEDecryptionFailed,
  JWEInvalid: () => JWEInvalid,
  JWKInvalid: () => JWKInvalid,
  JWKSInvalid: () => JWKSInvalid,
  JWKSMultipleMatchingKeys: () => JWKSMultipleMatchingKeys,
  JWKSNoMatchingKey: () => JWKSNoMatchingKey,
  JWKSTimeout: () => JWKSTimeout,
  JWSInvalid: () => JWSInvalid,
  JWSSignatureVerificationFailed: () => JWSSignatureVerificationFailed,
  JWTClaimValidationFailed: () => JWTClaimValidationFailed,
  JWTExpired: () => JWTExpired,
  JWTInvalid: () => JWTInvalid
});
var JOSEError = class extends Error {
  static {
    __name(this, "JOSEError");
  }
  static code = "ERR_JOSE_GENERIC";
  code = "ERR_JOSE_GENERIC";
  constructor(message2, options) {
    super(message2, options), this.name = this.constructor.name, Error.captureStackTrace?.(this, this.constructor);
  }
};
var JWTClaimValidationFailed = class extends JOSEError {
  static {
    __name(this, "JWTClaimValidationFailed");
  }
  static code = "ERR_JWT_CLAIM_VALIDATION_FAILED";
  code = "ERR_JWT_CLAIM_VALIDATION_FAILED";
  claim;
  reason;
  payload;
  constructor(message2, payload, claim = "unspecified", reason = "unspecified") {
    super(message2, { cause: { claim, reason, payload } }), this.claim = claim, this.reason = reason, this.payload = payload;
  }
};
var JWTExpired = class extends JOSEError {
  static {
    __name(this, "JWTExpired");
  }
  static code = "ERR_JWT_EXPIRED";
  code = "ERR_JWT_EXPIRED";
  claim;
  reason;
  payload;
  constructor(message2, payload, claim = "unspecified", reason = "unspecified") {
    super(message2, { cause: { claim, reason, payload } }), this.claim = claim, this.reason = reason, this.payload = payload;
  }
};
var JOSEAlgNotAllowed = class extends JOSEError {
  static {
    __name(this, "JOSEAlgNotAllowed");
  }
  static code = "ERR_JOSE_ALG_NOT_ALLOWED";
  code = "ERR_JOSE_ALG_NOT_ALLOWED";
};
var JOSENotSupported = class extends JOSEError {
  static {
    __name(this, "JOSENotSupported");
  }
  static code = "ERR_JOSE_NOT_SUPPORTED";
  code = "ERR_JOSE_NOT_SUPPORTED";
};
var JWEDecryptionFailed = class extends JOSEError {
  static {
    __name(this, "JWEDecryptionFailed");
  }
  static code = "ERR_JWE_DECRYPTION_FAILED";
  code = "ERR_JWE_DECRYPTION_FAILED";
  constructor(message2 = "decryption operation failed", options) {
    super(message2, options);
  }
};
var JWEInvalid = class extends JOSEError {
  static {
    __name(this, "JWEInvalid");
  }
  static code = "ERR_JWE_INVALID";
  code = "ERR_JWE_INVALID";
};
var JWSInvalid = class extends JOSEError {
  static {
    __name(this, "JWSInvalid");
  }
  static code = "ERR_JWS_INVALID";
  code = "ERR_JWS_INVALID";
};
var JWTInvalid = class extends JOSEError {
  static {
    __name(this, "JWTInvalid");
  }
  static code = "ERR_JWT_INVALID";
  code = "ERR_JWT_INVALID";
};
var JWKInvalid = class extends JOSEError {
  static {
    __name(this, "JWKInvalid");
  }
  static code = "ERR_JWK_INVALID";
  code = "ERR_JWK_INVALID";
};
var JWKSInvalid = class extends JOSEError {
  static {
    __name(this, "JWKSInvalid");
  }
  static code = "ERR_JWKS_INVALID";
  code = "ERR_JWKS_INVALID";
};
var JWKSNoMatchingKey = class extends JOSEError {
  static {
    __name(this, "JWKSNoMatchingKey");
  }
  static code = "ERR_JWKS_NO_MATCHING_KEY";
  code = "ERR_JWKS_NO_MATCHING_KEY";
  constructor(message2 = "no applicable key found in the JSON Web Key Set", options) {
    super(message2, options);
  }
};
var JWKSMultipleMatchingKeys = class extends JOSEError {
  static {
    __name(this, "JWKSMultipleMatchingKeys");
  }
  [Symbol.asyncIterator] = async function* () {
  };
  static code = "ERR_JWKS_MULTIPLE_MATCHING_KEYS";
  code = "ERR_JWKS_MULTIPLE_MATCHING_KEYS";
  constructor(message2 = "multiple matching keys found in the JSON Web Key Set", options) {
    super(message2, options);
  }
};
var JWKSTimeout = class extends JOSEError {
  static {
    __name(this, "JWKSTimeout");
  }
  static code = "ERR_JWKS_TIMEOUT";
  code = "ERR_JWKS_TIMEOUT";
  constructor(message2 = "request timed out", options) {
    super(message2, options);
  }
};
var JWSSignatureVerificationFailed = class extends JOSEError {
  static {
    __name(this, "JWSSignatureVerificationFailed");
  }
  static code = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
  code = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
  constructor(message2 = "signature verification failed", options) {
    super(message2, options);
  }
};

// ../../../work/main/node_modules/jose/dist/webapi/util/base64url.js
var invalid2 = "The input to be decoded is not correctly encoded.";
function decode(input) {
  try {
    return decodeBase642(typeof input == "string" ? input : decoder.decode(input), true);
  } catch (cause) {
    throw new TypeError(invalid2, { cause });
  }
}
__name(decode, "decode");
function encode2(input) {
  return encodeBase643(typeof input == "string" ? encoder.encode(input) : input, true);
}
__name(encode2, "encode");

// ../../../work/main/node_modules/jose/dist/webapi/lib/validate.js
function isObject2(input) {
  if (typeof input != "object" || input === null || Object.prototype.toString.call(input) !== "[object Object]")
    return false;
  const prototype = Object.getPrototypeOf(input);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}
__name(isObject2, "isObject");
function isJwkSet(input) {
  return isObject2(input) && Array.isArray(input.keys) && Array.from(input.keys).every(isObject2);
}
__name(isJwkSet, "isJwkSet");
function isDisjoint(...headers) {
  const parameters = /* @__PURE__ */ new Set();
  for (const header2 of headers)
    if (header2)
      for (const parameter of Object.keys(header2)) {
        if (parameters.has(parameter))
          return false;
        parameters.add(parameter);
      }
  return true;
}
__name(isDisjoint, "isDisjoint");
function assertNotSet(value, name) {
  if (value !== void 0)
    throw new TypeError(`${name} can only be called once`);
}
__name(assertNotSet, "assertNotSet");
function decodeBase64url(value, label, ErrorClass) {
  try {
    return decode(value);
  } catch (cause) {
    throw new ErrorClass(`Failed to base64url decode the ${label}`, { cause });
  }
}
__name(decodeBase64url, "decodeBase64url");
function encodeAsciiMember(value, label, ErrorClass) {
  try {
    return encode(value);
  } catch (cause) {
    throw new ErrorClass(`The ${label} is not a valid base64url string`, { cause });
  }
}
__name(encodeAsciiMember, "encodeAsciiMember");
function parseJoseHeader(encodedProtectedHeader, ErrorClass, message2) {
  let parsed;
  try {
    parsed = JSON.parse(strictDecoder.decode(decode(encodedProtectedHeader)));
  } catch (cause) {
    throw new ErrorClass(message2, { cause });
  }
  if (!isObject2(parsed))
    throw new ErrorClass(message2);
  return parsed;
}
__name(parseJoseHeader, "parseJoseHeader");
var JWS_RECOGNIZED = { __proto__: null, b64: true };
function validateAlgorithms(option, algorithms) {
  if (algorithms !== void 0 && (!Array.isArray(algorithms) || algorithms.some((s) => typeof s != "string")))
    throw new TypeError(`"${option}" option must be an array of strings`);
  return algorithms === void 0 ? void 0 : new Set(algorithms);
}
__name(validateAlgorithms, "validateAlgorithms");
function validateCritDuplicates(Err, protectedHeader) {
  const { crit } = protectedHeader ?? {};
  if (Array.isArray(crit) && new Set(crit).size !== crit.length)
    throw new Err('"crit" (Critical) Header Parameter MUST NOT contain duplicate values');
}
__name(validateCritDuplicates, "validateCritDuplicates");
function validateCrit(Err, recognizedDefault, recognizedOption, protectedHeader, joseHeader) {
  if (joseHeader.crit !== void 0 && protectedHeader?.crit === void 0)
    throw new Err('"crit" (Critical) Header Parameter MUST be integrity protected');
  if (!protectedHeader || protectedHeader.crit === void 0)
    return [];
  if (!Array.isArray(protectedHeader.crit) || protectedHeader.crit.length === 0 || protectedHeader.crit.some((input) => typeof input != "string" || input.length === 0))
    throw new Err('"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present');
  const recognized = recognizedOption === void 0 ? recognizedDefault : { __proto__: null, ...recognizedOption, ...recognizedDefault };
  for (const parameter of protectedHeader.crit) {
    if (!(parameter in recognized))
      throw new JOSENotSupported(`Extension Header Parameter "${parameter}" is not recognized`);
    if (!Object.hasOwn(joseHeader, parameter) || joseHeader[parameter] === void 0)
      throw new Err(`Extension Header Parameter "${parameter}" is missing`);
    if (recognized[parameter] && (!Object.hasOwn(protectedHeader, parameter) || protectedHeader[parameter] === void 0))
      throw new Err(`Extension Header Parameter "${parameter}" MUST be integrity protected`);
  }
  return protectedHeader.crit;
}
__name(validateCrit, "validateCrit");
function validateB64(protectedHeader, extensions) {
  if (extensions.includes("b64")) {
    const b64 = protectedHeader.b64;
    if (typeof b64 != "boolean")
      throw new JWSInvalid('The "b64" (base64url-encode payload) Header Parameter must be a boolean');
    return b64;
  }
  return true;
}
__name(validateB64, "validateB64");
function serializeJoseHeader(Err, header2) {
  let serialized, parsed;
  try {
    serialized = JSON.stringify(header2), parsed = JSON.parse(serialized);
  } catch (cause) {
    throw new Err("JOSE Header is not valid JSON", { cause });
  }
  if (!isObject2(parsed))
    throw new Err("JOSE Header is not a JSON object");
  return [parsed, serialized];
}
__name(serializeJoseHeader, "serializeJoseHeader");

// ../../../work/main/node_modules/jose/dist/webapi/lib/key.js
var tag = /* @__PURE__ */ __name((key) => key[Symbol.toStringTag], "tag");
var jwkMatchesOp = /* @__PURE__ */ __name((entry, key, usage) => {
  const { alg } = entry;
  if (key.use !== void 0) {
    const expected = usage === "sign" || usage === "verify" ? "sig" : "enc";
    if (key.use !== expected)
      throw new TypeError(`Invalid key for this operation, its "use" must be "${expected}" when present`);
  }
  if (key.alg !== void 0 && key.alg !== alg)
    throw new TypeError(`Invalid key for this operation, its "alg" must be "${alg}" when present`);
  if (Array.isArray(key.key_ops)) {
    const expectedKeyOp = usage === "encrypt" || usage === "decrypt" ? entry.ops?.[usage === "encrypt" ? 0 : 1] : usage;
    if (expectedKeyOp && !key.key_ops.includes(expectedKeyOp))
      throw new TypeError(`Invalid key for this operation, its "key_ops" must include "${expectedKeyOp}" when present`);
  }
}, "jwkMatchesOp");
async function prepareKey(entry, key, usage) {
  const { alg, secret } = entry, requiresPrivateKey = usage === "decrypt" || usage === "sign";
  if (secret && key instanceof Uint8Array)
    return key;
  let normalized, keyObject;
  if (isObject2(key)) {
    if (normalized = normalizeJwk(key), typeof normalized.kty != "string")
      throw invalidKeyType(alg, key, secret);
    if (!(secret ? normalized.kty === "oct" && typeof normalized.k == "string" : normalized.kty !== "oct" && (requiresPrivateKey ? normalized.kty === "AKP" && typeof normalized.priv == "string" || typeof normalized.d == "string" : normalized.d === void 0 && normalized.priv === void 0)))
      throw new TypeError(secret ? 'JSON Web Key for symmetric algorithms must have JWK "kty" (Key Type) equal to "oct" and the JWK "k" (Key Value) present' : `JSON Web Key for this operation must be a ${requiresPrivateKey ? "private" : "public"} JWK`);
    if (jwkMatchesOp(entry, normalized, usage), normalized.kty === "oct")
      return decode(normalized.k);
    if (!Object.isFrozen(key)) {
      const { key_ops } = key;
      Array.isArray(key_ops) && Object.freeze(key_ops), Object.freeze(key);
    }
  } else {
    if (!isKeyLike(key))
      throw invalidKeyType(alg, key, secret);
    const expectedType = secret ? "secret" : requiresPrivateKey ? "private" : "public";
    if (key.type !== expectedType && (secret || ["secret", "public", "private"].includes(key.type)))
      throw new TypeError(`${tag(key)} instances must be of type "${expectedType}" for the ${alg} algorithm`);
    if (isCryptoKey(key))
      return key;
    if (keyObject = key, keyObject.type === "secret")
      return keyObject.export();
  }
  cache5 ||= /* @__PURE__ */ new WeakMap();
  const cacheKey = key;
  let cached = cache5.get(cacheKey);
  if (cached?.[alg])
    return cached[alg];
  if (cached || cache5.set(cacheKey, cached = {}), keyObject && typeof keyObject.toCryptoKey == "function") {
    const isPublic = keyObject.type === "public", crv = nist[keyObject.asymmetricKeyDetails?.namedCurve], params = entry.resolve?.({ crv, asymmetricKeyType: keyObject.asymmetricKeyType }) ?? entry.subtle;
    return cached[alg] = keyObject.toCryptoKey(params, isPublic, entry.usages[isPublic ? 0 : 1]);
  }
  return normalized ??= keyObject.export({ format: "jwk" }), normalized.alg = alg, cached[alg] = await jwkToKey(entry, normalized);
}
__name(prepareKey, "prepareKey");
var cache5;
var nist = {
  __proto__: null,
  prime256v1: "P-256",
  secp384r1: "P-384",
  secp521r1: "P-521"
};
var isCryptoKey = /* @__PURE__ */ __name((key) => {
  if (key?.[Symbol.toStringTag] === "CryptoKey")
    return true;
  try {
    return key instanceof CryptoKey;
  } catch {
    return false;
  }
}, "isCryptoKey");
var isKeyObject = /* @__PURE__ */ __name((key) => key?.[Symbol.toStringTag] === "KeyObject", "isKeyObject");
var isKeyLike = /* @__PURE__ */ __name((key) => isCryptoKey(key) || isKeyObject(key), "isKeyLike");
function message(msg, actual, ...types) {
  if (types.length > 2) {
    const last = types.pop();
    msg += `one of type ${types.join(", ")}, or ${last}.`;
  } else types.length === 2 ? msg += `one of type ${types[0]} or ${types[1]}.` : msg += `of type ${types[0]}.`;
  return actual == null ? msg += ` Received ${actual}` : typeof actual == "function" && actual.name ? msg += ` Received function ${actual.name}` : typeof actual == "object" && actual != null && actual.constructor?.name && (msg += ` Received an instance of ${actual.constructor.name}`), msg;
}
__name(message, "message");
function invalidKeyType(alg, actual, secret) {
  const types = ["CryptoKey", "KeyObject", "JSON Web Key"];
  return secret && types.push("Uint8Array"), new TypeError(message(`Key for the ${alg} algorithm must be `, actual, ...types));
}
__name(invalidKeyType, "invalidKeyType");
var unusable = /* @__PURE__ */ __name((name, prop = "algorithm.name") => new TypeError(`CryptoKey does not support this operation, its ${prop} must be ${name}`), "unusable");
function checkUsage(key, usage) {
  if (usage && !key.usages.includes(usage))
    throw new TypeError(`CryptoKey does not support this operation, its usages must include ${usage}.`);
}
__name(checkUsage, "checkUsage");
function checkModulusLength(alg, key) {
  const { modulusLength } = key.algorithm;
  if (typeof modulusLength != "number" || modulusLength < 2048)
    throw new TypeError(`${alg} requires key modulusLength to be 2048 bits or larger`);
}
__name(checkModulusLength, "checkModulusLength");
function checkCryptoKey(key, expected, usage) {
  const algorithm = key.algorithm;
  if (algorithm.name !== expected.name)
    throw unusable(expected.name);
  if (expected.hash && algorithm.hash?.name !== expected.hash)
    throw unusable(expected.hash, "algorithm.hash");
  if (expected.namedCurve && algorithm.namedCurve !== expected.namedCurve)
    throw unusable(expected.namedCurve, "algorithm.namedCurve");
  if (expected.length !== void 0 && algorithm.length !== expected.length)
    throw unusable(expected.length, "algorithm.length");
  checkUsage(key, usage);
}
__name(checkCryptoKey, "checkCryptoKey");
function snapshotJwk(jwk) {
  return { __proto__: null, ...jwk };
}
__name(snapshotJwk, "snapshotJwk");
function normalizeJwk(jwk) {
  const normalized = snapshotJwk(jwk);
  if (normalized.ext !== void 0 && typeof normalized.ext != "boolean")
    throw new TypeError('"ext" (Extractable) Parameter must be a boolean');
  if (normalized.key_ops !== void 0) {
    const value = normalized.key_ops, keyOps = Array.isArray(value) ? [...value] : void 0;
    if (!keyOps || keyOps.some((operation2) => typeof operation2 != "string") || new Set(keyOps).size !== keyOps.length)
      throw new TypeError('"key_ops" (Key Operations) Parameter must be an array of unique strings');
    normalized.key_ops = keyOps;
  }
  return normalized;
}
__name(normalizeJwk, "normalizeJwk");
async function jwkToKey(entry, jwk, extractable) {
  if (!entry.kty.includes(jwk.kty))
    throw new JOSENotSupported('Invalid or unsupported JWK "alg" (Algorithm) Parameter value');
  const algorithm = entry.resolve?.({ kty: jwk.kty, crv: jwk.crv }) ?? entry.subtle, isPrivate = !!(jwk.d || jwk.priv), keyData = { ...jwk, ext: extractable ?? jwk.ext };
  return keyData.kty !== "AKP" && delete keyData.alg, delete keyData.use, crypto.subtle.importKey("jwk", keyData, algorithm, keyData.ext ?? !isPrivate, jwk.key_ops ?? entry.usages[isPrivate ? 1 : 0]);
}
__name(jwkToKey, "jwkToKey");
async function rawKey(key, expected, usage, extractable = false) {
  return key instanceof Uint8Array && (key = await crypto.subtle.importKey("raw", key, expected, extractable, [usage])), checkCryptoKey(key, expected, usage), key;
}
__name(rawKey, "rawKey");

// ../../../work/main/node_modules/jose/dist/webapi/lib/key_descriptor.js
function table(entries) {
  const out = { __proto__: null };
  for (const alg in entries)
    out[alg] = { ...entries[alg], alg };
  return out;
}
__name(table, "table");

// ../../../work/main/node_modules/jose/dist/webapi/lib/jws_algorithms.js
var sig = [["verify"], ["sign"]];
function hmac2(bits) {
  const subtle = { name: "HMAC", hash: `SHA-${bits}` };
  return { kty: ["oct"], secret: true, subtle, signing: subtle, usages: sig };
}
__name(hmac2, "hmac");
function rsa(bits, saltLength) {
  const subtle = { name: saltLength ? "RSA-PSS" : "RSASSA-PKCS1-v1_5", hash: `SHA-${bits}` };
  return {
    kty: ["RSA"],
    subtle,
    signing: saltLength ? { ...subtle, saltLength } : subtle,
    usages: sig,
    minRsaBits: 2048
  };
}
__name(rsa, "rsa");
function ecdsa(crv, bits) {
  return {
    kty: ["EC"],
    crv,
    subtle: { name: "ECDSA", namedCurve: crv },
    signing: { name: "ECDSA", hash: `SHA-${bits}` },
    usages: sig
  };
}
__name(ecdsa, "ecdsa");
function eddsa() {
  const subtle = { name: "Ed25519" };
  return {
    kty: ["OKP"],
    crv: "Ed25519",
    subtle,
    signing: subtle,
    usages: sig
  };
}
__name(eddsa, "eddsa");
function mldsa(parameterSet) {
  const subtle = { name: `ML-DSA-${parameterSet}` };
  return {
    kty: ["AKP"],
    subtle,
    signing: subtle,
    usages: sig
  };
}
__name(mldsa, "mldsa");
var JWS = table({
  HS256: hmac2(256),
  HS384: hmac2(384),
  HS512: hmac2(512),
  RS256: rsa(256),
  RS384: rsa(384),
  RS512: rsa(512),
  PS256: rsa(256, 32),
  PS384: rsa(384, 48),
  PS512: rsa(512, 64),
  ES256: ecdsa("P-256", 256),
  ES384: ecdsa("P-384", 384),
  ES512: ecdsa("P-521", 512),
  EdDSA: eddsa(),
  Ed25519: eddsa(),
  "ML-DSA-44": mldsa(44),
  "ML-DSA-65": mldsa(65),
  "ML-DSA-87": mldsa(87)
});
function jwsAlgorithm(alg) {
  const entry = typeof alg == "string" ? JWS[alg] : void 0;
  if (!entry)
    throw new JOSENotSupported(`alg ${alg} is not supported either by JOSE or your javascript runtime`);
  return entry;
}
__name(jwsAlgorithm, "jwsAlgorithm");

// ../../../work/main/node_modules/jose/dist/webapi/lib/jws_verify.js
function prepareVerify(options) {
  return [options && validateAlgorithms("algorithms", options.algorithms), options?.crit];
}
__name(prepareVerify, "prepareVerify");
function parseProtectedHeader(encodedProtectedHeader) {
  return encodedProtectedHeader === void 0 ? {} : parseJoseHeader(encodedProtectedHeader, JWSInvalid, "JWS Protected Header is invalid");
}
__name(parseProtectedHeader, "parseProtectedHeader");
function encodeCompactUnencodedPayload(payload) {
  try {
    return encode(payload);
  } catch (cause) {
    throw new JWSInvalid("JWS Compact Serialization payload must use only ASCII characters", {
      cause
    });
  }
}
__name(encodeCompactUnencodedPayload, "encodeCompactUnencodedPayload");
async function verifySignature(jws, shared, key, encodeUnencodedPayload, parsedProtected) {
  const { protected: encodedProtectedHeader, header: header2, payload: inputPayload } = jws, protectedHeader = parsedProtected ?? parseProtectedHeader(encodedProtectedHeader);
  if (!isDisjoint(protectedHeader, header2))
    throw new JWSInvalid("JWS Protected and JWS Unprotected Header Parameter names must be disjoint");
  const joseHeader = { ...protectedHeader, ...header2 }, b64 = validateB64(protectedHeader, validateCrit(JWSInvalid, JWS_RECOGNIZED, shared[1], protectedHeader, joseHeader)), { alg } = joseHeader;
  if (typeof alg != "string" || !alg)
    throw new JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (shared[0] && !shared[0].has(alg))
    throw new JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  if (b64) {
    if (typeof inputPayload != "string")
      throw new JWSInvalid("JWS Payload must be a string");
  } else if (typeof inputPayload != "string" && !(inputPayload instanceof Uint8Array))
    throw new JWSInvalid("JWS Payload must be a string or an Uint8Array instance");
  const signingPayload = b64 || typeof inputPayload != "string" ? inputPayload : encodeUnencodedPayload(inputPayload);
  let resolvedKey = false;
  typeof key == "function" && (key = await key(protectedHeader, jws), resolvedKey = true);
  const entry = jwsAlgorithm(alg), signingInput = concat(encodedProtectedHeader !== void 0 ? encode(encodedProtectedHeader) : new Uint8Array(), encode("."), typeof signingPayload == "string" ? shared[2] ??= encodeAsciiMember(signingPayload, "payload", JWSInvalid) : signingPayload), signature = decodeBase64url(jws.signature, "signature", JWSInvalid), verificationKey = await prepareKey(entry, key, "verify"), cryptoKey = await rawKey(verificationKey, entry.subtle, "verify");
  entry.minRsaBits && checkModulusLength(entry.alg, cryptoKey);
  let verified = false;
  try {
    verified = await crypto.subtle.verify(entry.signing, cryptoKey, signature, signingInput);
  } catch (cause) {
    throw new JWSSignatureVerificationFailed(void 0, { cause });
  }
  if (!verified)
    throw new JWSSignatureVerificationFailed();
  const result = { payload: typeof signingPayload == "string" ? decodeBase64url(signingPayload, "payload", JWSInvalid) : signingPayload };
  return encodedProtectedHeader !== void 0 && (result.protectedHeader = protectedHeader), header2 !== void 0 && (result.unprotectedHeader = header2), resolvedKey ? [{ ...result, key: verificationKey }, b64] : [result, b64];
}
__name(verifySignature, "verifySignature");
async function verifyCompact(jws, shared, key) {
  if (jws instanceof Uint8Array && (jws = decoder.decode(jws)), typeof jws != "string")
    throw new JWSInvalid("Compact JWS must be a string or Uint8Array");
  const { 0: protectedHeader, 1: payload, 2: signature, length } = jws.split(".");
  if (length !== 3)
    throw new JWSInvalid("Invalid Compact JWS");
  return verifySignature({ payload, protected: protectedHeader, signature }, shared, key, encodeCompactUnencodedPayload);
}
__name(verifyCompact, "verifyCompact");

// ../../../work/main/node_modules/jose/dist/webapi/lib/jwt_claims_set.js
var epoch = /* @__PURE__ */ __name((date) => Math.floor(date.getTime() / 1e3), "epoch");
var multipliers = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 604800,
  y: 31557600
};
var REGEX = /^(\+|\-)? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)(?: (ago|from now))?$/i;
var checkFailed = "check_failed";
function invalidDuration() {
  throw new TypeError("Invalid time period format");
}
__name(invalidDuration, "invalidDuration");
function secs(str2) {
  typeof str2 != "string" && invalidDuration();
  const matched = REGEX.exec(str2);
  (!matched || matched[4] && matched[1]) && invalidDuration();
  const value = parseFloat(matched[2]), durationSeconds = Math.round(value * multipliers[matched[3][0].toLowerCase()]);
  return Number.isFinite(durationSeconds) || invalidDuration(), matched[1] === "-" || matched[4] === "ago" ? -durationSeconds : durationSeconds;
}
__name(secs, "secs");
function validateInput(label, input) {
  if (!Number.isFinite(input))
    throw new TypeError(`Invalid ${label} input`);
  return input;
}
__name(validateInput, "validateInput");
function validateStringClaim(claim, value) {
  if (typeof value != "string")
    throw new TypeError(`"${claim}" claim must be a string`);
}
__name(validateStringClaim, "validateStringClaim");
function validateAudienceClaim(value) {
  if (typeof value != "string" && (!Array.isArray(value) || Array.from(value).some((member) => typeof member != "string")))
    throw new TypeError('"aud" claim must be a string or an array of strings');
}
__name(validateAudienceClaim, "validateAudienceClaim");
function numericDate(value, label) {
  return typeof value == "number" ? validateInput(label, value) : value instanceof Date ? validateInput(label, epoch(value)) : epoch(/* @__PURE__ */ new Date()) + secs(value);
}
__name(numericDate, "numericDate");
var normalizeTyp = /* @__PURE__ */ __name((value) => {
  const normalized = value.toLowerCase();
  return value.includes("/") ? normalized : `application/${normalized}`;
}, "normalizeTyp");
var checkAudiencePresence = /* @__PURE__ */ __name((audPayload, audOption) => typeof audPayload == "string" ? audOption.includes(audPayload) : Array.isArray(audPayload) ? audOption.some((aud) => audPayload.includes(aud)) : false, "checkAudiencePresence");
function validateNumericDate(claimsSet, claim, required = false) {
  const value = claimsSet[claim];
  if (!(value === void 0 && !required)) {
    if (typeof value != "number")
      throw new JWTClaimValidationFailed(`"${claim}" claim must be a number`, claimsSet, claim, "invalid");
    return value;
  }
}
__name(validateNumericDate, "validateNumericDate");
function unexpectedClaim(claimsSet, claim) {
  throw new JWTClaimValidationFailed(`unexpected "${claim}" claim value`, claimsSet, claim, checkFailed);
}
__name(unexpectedClaim, "unexpectedClaim");
function validateClaimsSet(protectedHeader, claimsSetBytes, options = {}) {
  let claimsSet;
  try {
    claimsSet = JSON.parse(strictDecoder.decode(claimsSetBytes));
  } catch (cause) {
    throw new JWTInvalid("JWT Claims Set must be a top-level JSON object", { cause });
  }
  if (!isObject2(claimsSet))
    throw new JWTInvalid("JWT Claims Set must be a top-level JSON object");
  const { typ } = options;
  if (typ !== void 0 && (typeof protectedHeader.typ != "string" || normalizeTyp(protectedHeader.typ) !== normalizeTyp(typ)))
    throw new JWTClaimValidationFailed('unexpected "typ" JWT header value', claimsSet, "typ", checkFailed);
  const { requiredClaims = [], issuer, subject, audience, maxTokenAge } = options, presenceCheck = [...requiredClaims];
  maxTokenAge !== void 0 && presenceCheck.push("iat"), audience !== void 0 && presenceCheck.push("aud"), subject !== void 0 && presenceCheck.push("sub"), issuer !== void 0 && presenceCheck.push("iss");
  for (const claim of new Set(presenceCheck.reverse()))
    if (!Object.hasOwn(claimsSet, claim))
      throw new JWTClaimValidationFailed(`missing required "${claim}" claim`, claimsSet, claim, "missing");
  issuer !== void 0 && !(Array.isArray(issuer) ? issuer : [issuer]).includes(claimsSet.iss) && unexpectedClaim(claimsSet, "iss"), subject !== void 0 && claimsSet.sub !== subject && unexpectedClaim(claimsSet, "sub"), audience !== void 0 && !checkAudiencePresence(claimsSet.aud, typeof audience == "string" ? [audience] : audience) && unexpectedClaim(claimsSet, "aud");
  const { clockTolerance } = options;
  let tolerance = 0;
  if (typeof clockTolerance == "string")
    tolerance = secs(clockTolerance);
  else if (clockTolerance !== void 0) {
    if (typeof clockTolerance != "number")
      throw new TypeError("Invalid clockTolerance option type");
    tolerance = clockTolerance;
  }
  if (validateInput("clockTolerance option", tolerance), tolerance < 0)
    throw new TypeError("Invalid clockTolerance option input");
  const { currentDate } = options, now = validateInput("currentDate option", epoch(currentDate === void 0 ? /* @__PURE__ */ new Date() : currentDate)), iat = validateNumericDate(claimsSet, "iat", maxTokenAge !== void 0), nbf = validateNumericDate(claimsSet, "nbf");
  if (nbf !== void 0 && nbf > now + tolerance)
    throw new JWTClaimValidationFailed('"nbf" claim timestamp check failed', claimsSet, "nbf", checkFailed);
  const exp = validateNumericDate(claimsSet, "exp");
  if (exp !== void 0 && exp <= now - tolerance)
    throw new JWTExpired('"exp" claim timestamp check failed', claimsSet, "exp", checkFailed);
  if (maxTokenAge !== void 0) {
    const age2 = now - iat, max = validateInput("maxTokenAge option", typeof maxTokenAge == "number" ? maxTokenAge : secs(maxTokenAge));
    if (max < 0)
      throw new TypeError("Invalid maxTokenAge option input");
    if (age2 - tolerance > max)
      throw new JWTExpired('"iat" claim timestamp check failed (too far in the past)', claimsSet, "iat", checkFailed);
    if (age2 < -tolerance)
      throw new JWTClaimValidationFailed('"iat" claim timestamp check failed (it should be in the past)', claimsSet, "iat", checkFailed);
  }
  return claimsSet;
}
__name(validateClaimsSet, "validateClaimsSet");
var producerClaimsSets;
function producerClaimsSet(producer) {
  return producerClaimsSets.get(producer);
}
__name(producerClaimsSet, "producerClaimsSet");
function jwtClaimsSetBytes(producer) {
  const claimsSet = producerClaimsSet(producer);
  for (const claim of ["iat", "nbf", "exp"]) {
    const value = claimsSet[claim];
    if (typeof value == "number" && !Number.isFinite(value))
      throw new TypeError(`"${claim}" claim must be a finite number`);
  }
  return encoder.encode(JSON.stringify(claimsSet));
}
__name(jwtClaimsSetBytes, "jwtClaimsSetBytes");
var JWTClaimsBuilder = class {
  static {
    __name(this, "JWTClaimsBuilder");
  }
  constructor(claimsSet = {}) {
    if (!isObject2(claimsSet))
      throw new TypeError("JWT Claims Set MUST be an object");
    (producerClaimsSets ||= /* @__PURE__ */ new WeakMap()).set(this, structuredClone(claimsSet));
  }
  setIssuer(value) {
    return validateStringClaim("iss", value), producerClaimsSet(this).iss = value, this;
  }
  setSubject(value) {
    return validateStringClaim("sub", value), producerClaimsSet(this).sub = value, this;
  }
  setAudience(value) {
    return validateAudienceClaim(value), producerClaimsSet(this).aud = value, this;
  }
  setJti(value) {
    return validateStringClaim("jti", value), producerClaimsSet(this).jti = value, this;
  }
  setNotBefore(value) {
    return producerClaimsSet(this).nbf = numericDate(value, "setNotBefore"), this;
  }
  setExpirationTime(value) {
    return producerClaimsSet(this).exp = numericDate(value, "setExpirationTime"), this;
  }
  setIssuedAt(value) {
    const claimsSet = producerClaimsSet(this);
    return value === void 0 ? claimsSet.iat = epoch(/* @__PURE__ */ new Date()) : typeof value == "string" ? claimsSet.iat = validateInput("setIssuedAt", epoch(/* @__PURE__ */ new Date()) + secs(value)) : claimsSet.iat = numericDate(value, "setIssuedAt"), this;
  }
};

// ../../../work/main/node_modules/jose/dist/webapi/jwt/verify.js
async function jwtVerify(jwt, key, options) {
  const [verified, b64] = await verifyCompact(jwt, prepareVerify(options), key);
  if (!b64)
    throw new JWTInvalid("JWTs MUST NOT use unencoded payload");
  const payload = validateClaimsSet(verified.protectedHeader, verified.payload, options);
  return { ...verified, payload };
}
__name(jwtVerify, "jwtVerify");

// ../../../work/main/node_modules/jose/dist/webapi/lib/jws_sign.js
async function createSignature(input, key, rejectUnencoded) {
  let [payload, protectedHeader, unprotectedHeader, crit] = input, encodedProtectedHeader = "";
  if (protectedHeader !== void 0) {
    const normalized = serializeJoseHeader(JWSInvalid, protectedHeader);
    protectedHeader = normalized[0], encodedProtectedHeader = encode2(normalized[1]);
  }
  if (unprotectedHeader !== void 0 && (unprotectedHeader = serializeJoseHeader(JWSInvalid, unprotectedHeader)[0]), !protectedHeader && !unprotectedHeader)
    throw new JWSInvalid("either setProtectedHeader or setUnprotectedHeader must be called before #sign()");
  if (!isDisjoint(protectedHeader, unprotectedHeader))
    throw new JWSInvalid("JWS Protected and JWS Unprotected Header Parameter names must be disjoint");
  const joseHeader = { ...protectedHeader, ...unprotectedHeader };
  validateCritDuplicates(JWSInvalid, protectedHeader);
  const b64 = validateB64(protectedHeader, validateCrit(JWSInvalid, JWS_RECOGNIZED, crit, protectedHeader, joseHeader));
  b64 || rejectUnencoded?.();
  const { alg } = joseHeader;
  if (typeof alg != "string" || !alg)
    throw new JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  const entry = jwsAlgorithm(alg);
  let encodedPayload = "", signingPayload = payload, signingInput;
  if (b64) {
    const encodedPayloadCache = input[4];
    encodedPayloadCache ? (encodedPayload = encodedPayloadCache[0] ??= encode2(payload), signingPayload = encodedPayloadCache[1] ??= encode(encodedPayload)) : (encodedPayload = encode2(payload), signingInput = encoder.encode(`${encodedProtectedHeader}.${encodedPayload}`));
  }
  signingInput ??= concat(encode(encodedProtectedHeader), encode("."), signingPayload);
  const signingKey = await rawKey(await prepareKey(entry, key, "sign"), entry.subtle, "sign");
  entry.minRsaBits && checkModulusLength(entry.alg, signingKey);
  const jws = {
    signature: encode2(new Uint8Array(await crypto.subtle.sign(entry.signing, signingKey, signingInput))),
    payload: encodedPayload
  };
  return protectedHeader && (jws.protected = encodedProtectedHeader), unprotectedHeader && (jws.header = unprotectedHeader), [jws, b64];
}
__name(createSignature, "createSignature");
async function createCompactSignature(payload, protectedHeader, crit, key, rejectUnencoded) {
  const [jws] = await createSignature([payload, protectedHeader, void 0, crit], key, rejectUnencoded);
  return `${jws.protected}.${jws.payload}.${jws.signature}`;
}
__name(createCompactSignature, "createCompactSignature");

// ../../../work/main/node_modules/jose/dist/webapi/jwt/sign.js
var SignJWT_base = JWTClaimsBuilder;
var SignJWT = class extends SignJWT_base {
  static {
    __name(this, "SignJWT");
  }
  #protectedHeader;
  setProtectedHeader(protectedHeader) {
    return assertNotSet(this.#protectedHeader, "setProtectedHeader"), this.#protectedHeader = protectedHeader, this;
  }
  async sign(key, options) {
    return createCompactSignature(jwtClaimsSetBytes(this), this.#protectedHeader, options?.crit, key, () => {
      throw new JWTInvalid("JWTs MUST NOT use unencoded payload");
    });
  }
};

// ../../../work/main/node_modules/jose/dist/webapi/jwks/local.js
function isUsableJWK(jwk, entry, alg, kid) {
  const { kty, key_ops: keyOps, ext, kid: jwkKid, alg: jwkAlg, use, crv } = jwk;
  return (ext === void 0 || typeof ext == "boolean") && (keyOps === void 0 || Array.isArray(keyOps) && keyOps.every((operation2, index) => typeof operation2 == "string" && keyOps.indexOf(operation2) === index) && keyOps.includes("verify")) && entry.kty.includes(kty) && (kid === void 0 || typeof kid == "string" && kid === jwkKid) && (jwkAlg === void 0 ? kty !== "AKP" : alg === jwkAlg) && (use === void 0 || use === "sig") && (!entry.crv || crv === entry.crv);
}
__name(isUsableJWK, "isUsableJWK");
async function importWithAlgCache(cache6, jwk, entry) {
  const cached = cache6.get(jwk) || cache6.set(jwk, {}).get(jwk), { alg } = entry;
  if (cached[alg] === void 0) {
    const pending = jwkToKey(entry, jwk, true).then((key) => {
      if (key.type !== "public")
        throw new JWKSInvalid("JSON Web Key Set members must be public keys");
      return cached[alg] = key, key;
    }).catch((error) => {
      throw cached[alg] === pending && delete cached[alg], error;
    });
    cached[alg] = pending;
  }
  return cached[alg];
}
__name(importWithAlgCache, "importWithAlgCache");
function createLocalJWKSet(jwks) {
  let snapshot;
  try {
    snapshot = structuredClone(jwks);
  } catch (cause) {
    throw new JWKSInvalid("JSON Web Key Set malformed", { cause });
  }
  if (!isJwkSet(snapshot))
    throw new JWKSInvalid("JSON Web Key Set malformed");
  const metadata2 = snapshot.keys.map((jwk) => {
    const normalized = snapshotJwk(jwk);
    return Array.isArray(normalized.key_ops) && (normalized.key_ops = [...normalized.key_ops]), normalized;
  }), cached = /* @__PURE__ */ new WeakMap();
  return Object.defineProperty(async (protectedHeader, token) => {
    const { alg, kid } = { ...protectedHeader, ...token?.header }, entry = typeof alg == "string" ? JWS[alg] : void 0;
    if (!entry || entry.secret)
      throw new JOSENotSupported('Unsupported "alg" value for a JSON Web Key Set');
    const candidates = snapshot.keys.filter((_, index) => isUsableJWK(metadata2[index], entry, alg, kid)), { 0: jwk, length } = candidates;
    if (!length)
      throw new JWKSNoMatchingKey();
    if (length !== 1) {
      const error = new JWKSMultipleMatchingKeys();
      throw error[Symbol.asyncIterator] = async function* () {
        for (const jwk2 of candidates)
          try {
            yield await importWithAlgCache(cached, jwk2, entry);
          } catch {
          }
      }, error;
    }
    return importWithAlgCache(cached, jwk, entry);
  }, "jwks", {
    value: /* @__PURE__ */ __name(() => structuredClone(snapshot), "value")
  });
}
__name(createLocalJWKSet, "createLocalJWKSet");

// ../../../work/main/node_modules/jose/dist/webapi/jwks/remote.js
function isCloudflareWorkers() {
  return typeof WebSocketPair < "u" || typeof navigator < "u" && true || typeof EdgeRuntime < "u" && EdgeRuntime === "vercel";
}
__name(isCloudflareWorkers, "isCloudflareWorkers");
var USER_AGENT;
(typeof navigator > "u" || !"Cloudflare-Workers"?.startsWith?.("Mozilla/5.0 ")) && (USER_AGENT = "jose/v6.2.17");
var customFetch = /* @__PURE__ */ Symbol();
async function fetchJwks(url, headers, signal, fetchImpl = fetch) {
  const response = await fetchImpl(url, {
    method: "GET",
    signal,
    redirect: "manual",
    headers
  }).catch((err) => {
    throw err.name === "TimeoutError" ? new JWKSTimeout(void 0, { cause: err }) : err;
  });
  if (response.status !== 200)
    throw new JOSEError("Expected 200 OK from the JSON Web Key Set HTTP response");
  try {
    return await response.json();
  } catch (cause) {
    throw new JOSEError("Failed to parse the JSON Web Key Set HTTP response as JSON", { cause });
  }
}
__name(fetchJwks, "fetchJwks");
var jwksCache = /* @__PURE__ */ Symbol();
function isFreshFor(timestamp, duration) {
  return Number.isFinite(timestamp) && Date.now() < timestamp + duration;
}
__name(isFreshFor, "isFreshFor");
function validateDuration(value, fallback, option) {
  if (Number.isNaN(value))
    throw new TypeError(`"${option}" option must not be NaN`);
  if (typeof value == "number" && value < 0)
    throw new TypeError(`"${option}" option must not be negative`);
  return typeof value == "number" ? value : fallback;
}
__name(validateDuration, "validateDuration");
function createRemoteJWKSet(url, options) {
  if (!(url instanceof URL))
    throw new TypeError("url must be an instance of URL");
  const href = new URL(url.href).href, opts = options ?? {}, timeoutOption = opts.timeoutDuration;
  if (typeof timeoutOption == "number" && (!Number.isInteger(timeoutOption) || timeoutOption < 0))
    throw new TypeError('"timeoutDuration" option must be a non-negative integer');
  const timeoutDuration = typeof timeoutOption == "number" ? timeoutOption : 5e3, cooldownDuration = validateDuration(opts.cooldownDuration, 3e4, "cooldownDuration"), cacheMaxAge = validateDuration(opts.cacheMaxAge, 6e5, "cacheMaxAge"), headers = new Headers(opts.headers);
  USER_AGENT && !headers.has("User-Agent") && headers.set("User-Agent", USER_AGENT), headers.has("accept") || headers.set("accept", "application/json, application/jwk-set+json");
  const fetchImpl = opts[customFetch], cache6 = opts[jwksCache];
  let jwksTimestamp, pendingFetch, reloadSequence = 0, appliedSequence = 0, local;
  if (cache6 && typeof cache6 == "object") {
    const { uat, jwks } = cache6;
    isFreshFor(uat, cacheMaxAge) && isJwkSet(jwks) && (jwksTimestamp = uat, local = createLocalJWKSet(jwks));
  }
  const reload = /* @__PURE__ */ __name(async () => {
    if (pendingFetch && isCloudflareWorkers() && (pendingFetch = void 0), !pendingFetch) {
      const sequence = ++reloadSequence, current = pendingFetch = fetchJwks(href, headers, AbortSignal.timeout(timeoutDuration), fetchImpl).then((json) => {
        const next = createLocalJWKSet(json);
        if (sequence <= appliedSequence)
          return;
        local = next;
        const updatedAt = Date.now();
        cache6 && (cache6.uat = updatedAt, cache6.jwks = json), jwksTimestamp = updatedAt, appliedSequence = sequence;
      }).finally(() => {
        pendingFetch === current && (pendingFetch = void 0);
      });
    }
    await pendingFetch;
  }, "reload");
  return Object.defineProperties(async (protectedHeader, token) => {
    (!local || !isFreshFor(jwksTimestamp, cacheMaxAge)) && await reload();
    try {
      return await local(protectedHeader, token);
    } catch (err) {
      if (err instanceof JWKSNoMatchingKey && !isFreshFor(jwksTimestamp, cooldownDuration))
        return await reload(), local(protectedHeader, token);
      throw err;
    }
  }, {
    coolingDown: {
      get: /* @__PURE__ */ __name(() => isFreshFor(jwksTimestamp, cooldownDuration), "get"),
      enumerable: true
    },
    fresh: {
      get: /* @__PURE__ */ __name(() => isFreshFor(jwksTimestamp, cacheMaxAge), "get"),
      enumerable: true
    },
    reload: {
      value: reload,
      enumerable: true
    },
    reloading: {
      get: /* @__PURE__ */ __name(() => !!pendingFetch, "get"),
      enumerable: true
    },
    jwks: {
      value: /* @__PURE__ */ __name(() => local?.jwks(), "value"),
      enumerable: true
    }
  });
}
__name(createRemoteJWKSet, "createRemoteJWKSet");

// ../../../work/main/node_modules/jose/dist/webapi/util/decode_protected_header.js
function decodeProtectedHeader(token) {
  let encodedProtectedHeader;
  if (typeof token == "string") {
    const parts2 = token.split(".");
    (parts2.length === 3 || parts2.length === 5) && ([encodedProtectedHeader] = parts2);
  } else if (typeof token == "object" && token)
    if ("protected" in token)
      encodedProtectedHeader = token.protected;
    else
      throw new TypeError("Token does not contain a Protected Header");
  const invalid3 = "Invalid Token or Protected Header formatting";
  if (typeof encodedProtectedHeader != "string" || !encodedProtectedHeader)
    throw new TypeError(invalid3);
  return parseJoseHeader(encodedProtectedHeader, TypeError, invalid3);
}
__name(decodeProtectedHeader, "decodeProtectedHeader");

// src/http/jwt.ts
var keySets = /* @__PURE__ */ new Map();
function remoteKeySet(url, cooldownMs) {
  const name = `${cooldownMs} ${url}`;
  let set = keySets.get(name);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 3e3, cooldownDuration: cooldownMs, cacheMaxAge: 6e5 });
    keySets.set(name, set);
  }
  return set;
}
__name(remoteKeySet, "remoteKeySet");
function tokenFault(err, token) {
  if (err instanceof errors_exports.JWTClaimValidationFailed) return `${token}'s "${err.claim}" claim is missing or not accepted.`;
  switch (err instanceof errors_exports.JOSEError ? err.code : "") {
    case errors_exports.JWTExpired.code:
      return `${token} has expired.`;
    case errors_exports.JOSEAlgNotAllowed.code:
      return `${token}'s signing algorithm is not accepted.`;
    case errors_exports.JOSENotSupported.code:
      return `${token} uses a feature that is not accepted.`;
    case errors_exports.JWSInvalid.code:
    case errors_exports.JWTInvalid.code:
      return `${token} is not a well-formed JWT.`;
    case errors_exports.JWSSignatureVerificationFailed.code:
    case errors_exports.JWKSNoMatchingKey.code:
    case errors_exports.JWKSMultipleMatchingKeys.code:
      return `${token}'s signature could not be verified.`;
    default:
      return null;
  }
}
__name(tokenFault, "tokenFault");

// src/http/auth.ts
var CLOCK_TOLERANCE_SECONDS = 30;
var MAX_CREDENTIAL_LENGTH = 8192;
var MAX_SUBJECT_LENGTH = 255;
var JWKS_REFETCH_COOLDOWN_MS = 3e4;
var PARTNER = { kind: "partner", id: "partner" };
var REALM = "payments-gateway";
var unauthorized = /* @__PURE__ */ __name((message2, credentialSent = true) => new ApiError("unauthorized", message2, {
  headers: {
    "WWW-Authenticate": credentialSent ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`
  }
}), "unauthorized");
var authenticate = createMiddleware(async (c, next) => {
  c.set("caller", await identify(c.env, c.req.header("authorization")));
  await next();
});
async function identify(env, authorization) {
  if (!authorization) throw unauthorized("Send Authorization: Bearer <partner server key or user JWT>.", false);
  const match2 = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (!match2) throw unauthorized("The Authorization header must be Bearer <partner server key or user JWT>.", false);
  const credential = match2[1];
  if (credential.length > MAX_CREDENTIAL_LENGTH) throw unauthorized("The credential is too long to be a server key or JWT.");
  if (credential.startsWith("sk_")) {
    if (await isPartnerKey(env, credential)) return PARTNER;
    throw unauthorized("The server key is not valid.");
  }
  return { kind: "user", id: await verifyUserToken(env, credential) };
}
__name(identify, "identify");
async function isPartnerKey(env, key) {
  const presented = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  let matched = false;
  for (const digest of readConfig(env).partnerKeyDigests) {
    matched = crypto.subtle.timingSafeEqual(presented, digest) || matched;
  }
  return matched;
}
__name(isPartnerKey, "isPartnerKey");
async function verifyUserToken(env, token) {
  const config = readConfig(env).userTokens;
  if (!config) throw unauthorized("User tokens are not accepted by this deployment.");
  let payload;
  try {
    ({ payload } = await verify(config, token));
  } catch (err) {
    throw tokenFailure(config, err);
  }
  const sub = payload.sub;
  if (typeof sub !== "string" || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH) {
    throw unauthorized(`The token's "sub" claim is missing or not accepted.`);
  }
  return sub;
}
__name(verifyUserToken, "verifyUserToken");
function verify(config, token) {
  const options = {
    algorithms: [...config.algorithms],
    requiredClaims: ["exp", "sub"],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    ...config.issuer ? { issuer: config.issuer } : {},
    ...config.audience ? { audience: config.audience } : {}
  };
  return config.mode === "jwks" ? jwtVerify(token, remoteKeySet(config.jwksUrl, JWKS_REFETCH_COOLDOWN_MS), options) : jwtVerify(token, config.secret, options);
}
__name(verify, "verify");
function tokenFailure(config, err) {
  const fault = tokenFault(err, "The token");
  if (fault) return unauthorized(fault);
  if (config.mode === "jwks") {
    log("error", "jwks_unavailable", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    return new ApiError("upstream_error", "The identity provider's signing keys could not be fetched; retry shortly.");
  }
  return unauthorized("The token could not be verified.");
}
__name(tokenFailure, "tokenFailure");
var requirePartner = createMiddleware(async (c, next) => {
  if (c.var.caller.kind !== "partner") {
    throw new ApiError("forbidden", "This operation is for the partner backend's server key; users may not call it.");
  }
  await next();
});

// src/backoffice/access.ts
var ACCESS_COOKIE = "CF_Authorization";
var ACCESS_HEADER = "cf-access-jwt-assertion";
var DEV_ISSUER = "payments-gateway-development";
var DEV_AUDIENCE = "payments-gateway-console";
var DEV_SESSION_SECONDS = 8 * 3600;
var KEY_REFETCH_COOLDOWN_MS = 3e4;
var MAX_TOKEN_LENGTH = 8192;
var isDevelopment = /* @__PURE__ */ __name((env) => env.ENVIRONMENT === "development", "isDevelopment");
var devSignInOffered = /* @__PURE__ */ __name((env) => isDevelopment(env) && (env.ACCESS_DEV_SECRET ?? "") !== "", "devSignInOffered");
var unauthorized2 = /* @__PURE__ */ __name((message2) => new ApiError("unauthorized", message2, { headers: { "WWW-Authenticate": 'Bearer realm="console"' } }), "unauthorized");
var teamDomain = /* @__PURE__ */ __name((env) => (env.ACCESS_TEAM_DOMAIN ?? "").trim().replace(/^https?:\/\//, "").replace(/\/+$/, ""), "teamDomain");
var refetchedAt = /* @__PURE__ */ new Map();
function refusal(err) {
  if (err instanceof errors_exports.JWTExpired) return unauthorized2("The Access token has expired: sign in again.");
  const fault = tokenFault(err, "The Access token");
  if (fault) return unauthorized2(fault);
  log("error", "access_keys_unavailable", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  return new ApiError("upstream_error", "Cloudflare Access's signing keys could not be fetched; retry shortly.");
}
__name(refusal, "refusal");
async function verifyAccessToken(env, token) {
  const domain = teamDomain(env);
  const audience = (env.ACCESS_AUD ?? "").trim();
  if (!domain || !audience) throw unauthorized2("Cloudflare Access is not configured for this console (ACCESS_TEAM_DOMAIN, ACCESS_AUD).");
  const options = {
    algorithms: ["RS256"],
    audience,
    issuer: `https://${domain}`,
    requiredClaims: ["exp"],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    currentDate: new Date(clock.now())
  };
  const url = `https://${domain}/cdn-cgi/access/certs`;
  const keys = remoteKeySet(url, 6e5);
  try {
    return (await jwtVerify(token, keys, options)).payload;
  } catch (err) {
    if (!(err instanceof errors_exports.JWKSNoMatchingKey) || clock.now() - (refetchedAt.get(url) ?? Number.NEGATIVE_INFINITY) < KEY_REFETCH_COOLDOWN_MS)
      throw err;
    refetchedAt.set(url, clock.now());
    await keys.reload();
    return (await jwtVerify(token, keys, options)).payload;
  }
}
__name(verifyAccessToken, "verifyAccessToken");
var devSecret = /* @__PURE__ */ __name((env) => new TextEncoder().encode(env.ACCESS_DEV_SECRET ?? ""), "devSecret");
var devAudience = /* @__PURE__ */ __name((env) => (env.ACCESS_AUD ?? "").trim() || DEV_AUDIENCE, "devAudience");
function signDevToken(env, email2, role) {
  const now = Math.floor(clock.now() / 1e3);
  return new SignJWT({ email: email2, role }).setProtectedHeader({ alg: "HS256" }).setIssuer(DEV_ISSUER).setAudience(devAudience(env)).setSubject(email2).setIssuedAt(now).setExpirationTime(now + DEV_SESSION_SECONDS).sign(devSecret(env));
}
__name(signDevToken, "signDevToken");
function tokenOf(headers, cookie) {
  return headers.header(ACCESS_HEADER)?.trim() || cookie?.trim() || void 0;
}
__name(tokenOf, "tokenOf");
async function identifyStaff(env, c) {
  if (c.req.header("authorization")) {
    throw new ApiError("forbidden", "The console does not take a server key or a user's token: sign in through Cloudflare Access.");
  }
  const token = tokenOf(c.req, getCookie(c, ACCESS_COOKIE));
  if (!token) throw unauthorized2("Sign in through Cloudflare Access: no Access token came with the request.");
  if (token.length > MAX_TOKEN_LENGTH) throw unauthorized2("The Access token is too long to be one.");
  let alg;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw unauthorized2("The Access token is not a well-formed JWT.");
  }
  const development = alg === "HS256";
  if (development && !devSignInOffered(env)) throw unauthorized2("The Access token's signing algorithm is not accepted.");
  let payload;
  try {
    payload = development ? (await jwtVerify(token, devSecret(env), {
      algorithms: ["HS256"],
      audience: devAudience(env),
      issuer: DEV_ISSUER,
      requiredClaims: ["exp"],
      currentDate: new Date(clock.now())
    })).payload : await verifyAccessToken(env, token);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw refusal(err);
  }
  const email2 = typeof payload.email === "string" ? payload.email.trim().toLowerCase() : "";
  if (!email2 || email2.length > 255)
    throw new ApiError("forbidden", "The Access identity has no email: the console is for people named in STAFF_ROLES.");
  const parsed = parseStaffRoles(env.STAFF_ROLES);
  const configured = "roles" in parsed ? roleOf(parsed.roles, email2) : null;
  const chosen = development && ROLES.includes(payload.role) ? payload.role : null;
  return { email: email2, role: chosen ?? configured };
}
__name(identifyStaff, "identifyStaff");

// src/backoffice/timeline.ts
var STATE_NAMES2 = {
  [STATE.created]: "created",
  [STATE.paid]: "paid",
  [STATE.held]: "held",
  [STATE.cancelled]: "cancelled",
  [STATE.awaitingSupplier]: "awaiting_supplier"
};
var stateName2 = /* @__PURE__ */ __name((state) => state === null ? null : STATE_NAMES2[state] ?? `state_${state}`, "stateName");
var UPSTREAM_OPS = /* @__PURE__ */ new Set([
  "create",
  "authorize",
  "pay",
  "hold-confirm",
  "cancel",
  "read",
  "check",
  "check-id",
  "reconcile",
  "expire",
  "exhaustion-cancel",
  "expiry-cancel"
]);
var UNKNOWN_OUTCOMES = /* @__PURE__ */ new Set(["upstream_timeout", "upstream_error"]);
var RISK_REFUSAL = "risk_limited";
var EVENTS_PER_RECORD2 = 100;
var maskedOwner = /* @__PURE__ */ __name((owner) => owner === "partner" ? "partner" : erasedValue(owner), "maskedOwner");
var ownerShown = /* @__PURE__ */ __name((owner) => owner === "partner" ? "partner" : `user:${maskedOwner(owner)}`, "ownerShown");
function callsOf(entries) {
  const calls = [];
  entries.forEach((entry, i) => {
    if (!UPSTREAM_OPS.has(entry.op)) return;
    const unknown = UNKNOWN_OUTCOMES.has(entry.outcome);
    const call = {
      at: entry.at,
      method: entry.op,
      actor: entry.actor,
      request_id: entry.request_id,
      outcome: entry.outcome === "ok" ? "ok" : unknown ? "unknown" : "error"
    };
    if (entry.outcome !== "ok") call.code = entry.outcome;
    if (unknown) {
      const look = entries.slice(i + 1).find((later) => later.op === "reconcile" && later.outcome === "ok");
      call.reconciled = look ? { found: look.state, found_name: stateName2(look.state), at: look.at } : null;
    }
    calls.push(call);
  });
  return calls;
}
__name(callsOf, "callsOf");
function statesOf(entries) {
  const states = [];
  for (const entry of entries) {
    if (entry.state === null || states.at(-1)?.state === entry.state) continue;
    states.push({ state: entry.state, state_name: stateName2(entry.state), at: entry.at });
  }
  return states;
}
__name(statesOf, "statesOf");
function userSaw(entries) {
  return entries.filter((entry) => entry.outcome !== "ok" && entry.actor !== "gateway").map((entry) => {
    const row = ERROR_CODES[entry.outcome];
    return { at: entry.at, op: entry.op, actor: entry.actor, code: entry.outcome, user_message: row?.user_message.en ?? null };
  });
}
__name(userSaw, "userSaw");
var recordOf = /* @__PURE__ */ __name(({ kind, id }) => (env) => receiptStub(env, kind, id).backOffice(), "recordOf");
var maskedBody = /* @__PURE__ */ __name((body) => erasePersonal(JSON.parse(body)), "maskedBody");
function summaryOf(stored) {
  const body = maskedBody(stored.body);
  const last = stored.entries.at(-1);
  return {
    id: stored.id,
    kind: stored.kind,
    state: stored.state,
    state_name: stateName2(stored.state),
    amount: typeof body.amount === "number" ? body.amount : null,
    tid: stored.tid,
    user_masked: maskedOwner(stored.owner),
    created_at: stored.createdAt,
    updated_at: Math.max(stored.updatedAt, last?.at ?? 0)
  };
}
__name(summaryOf, "summaryOf");
async function timelineOf(env, stored) {
  const body = maskedBody(stored.body);
  const { rows } = await listLoggedEvents(env, { receiptId: stored.id, limit: EVENTS_PER_RECORD2 });
  const attempts = await recordAttempts(
    env,
    stored.id,
    rows.map((row) => row.id)
  );
  const events = rows.map((row) => ({
    id: row.id,
    type: row.type,
    delivery: row.delivery_status,
    attempts: row.attempts,
    deliveries: attempts.filter((attempt) => attempt.event_id === row.id).map((attempt) => ({ at: attempt.at, status: attempt.status, ok: attempt.ok, answer: attempt.answer }))
  })).reverse();
  const entries = stored.entries;
  return {
    record: {
      ...summaryOf(stored),
      owner: ownerShown(stored.owner),
      commission: typeof body.commission === "number" ? body.commission : null,
      merchant_id: typeof body.merchant_id === "number" ? body.merchant_id : body.merchant?.id ?? null,
      erased: stored.erased,
      body
    },
    states: statesOf(entries),
    audit: entries,
    calls: callsOf(entries),
    events,
    refusals: entries.filter((entry) => entry.outcome === RISK_REFUSAL).map((entry) => ({ at: entry.at, op: entry.op, code: entry.outcome })),
    fiscal: body.ofd ?? null,
    fiscal_pending: isFiscalPending(stored.fiscal),
    user_saw: userSaw(entries)
  };
}
__name(timelineOf, "timelineOf");
function revealed(stored, field) {
  const body = JSON.parse(stored.body);
  const account = Array.isArray(body.account) ? body.account : null;
  if (field === "account") return account;
  const named = account?.find(
    (entry) => entry !== null && typeof entry === "object" && String(entry.key).toLowerCase() === "phone" && typeof entry.value === "string"
  );
  if (named) return named.value;
  const find = /* @__PURE__ */ __name((value, depth) => {
    if (value === null || typeof value !== "object" || depth > 6) return null;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "phone" && typeof inner === "string" && inner) return inner;
      const deeper = find(inner, depth + 1);
      if (deeper) return deeper;
    }
    return null;
  }, "find");
  return find(body, 0);
}
__name(revealed, "revealed");

// src/backoffice/routes.ts
var Id = pipe(string("id must be a string"), minLength(1, "id must not be empty"), maxLength(128, "id must be at most 128 characters"));
var Text = /* @__PURE__ */ __name((name) => pipe(
  string(`${name} must be a string`),
  minLength(1, `${name} must not be empty`),
  maxLength(255, `${name} must be at most 255 characters`)
), "Text");
var Kind = optional(picklist(KIND_NAMES, "kind must be receipt or transfer"));
var Day = pipe(string("date must be a string"), regex(/^\d{4}-\d{2}-\d{2}$/, "date must be a date, YYYY-MM-DD"));
var Millis = /* @__PURE__ */ __name((name) => pipe(number(`${name} must be a number`), integer(`${name} must be an integer`), minValue(0, `${name} must not be negative`)), "Millis");
var FIND_LIMIT = 20;
var RESEND_SPAN_MS = 31 * 864e5;
var RESEND_LIMIT = 100;
async function locate(env, id, kind) {
  for (const k of kind ? [kind] : KIND_NAMES) {
    const stored = await recordOf({ kind: k, id })(env);
    if (stored) return stored;
  }
  return null;
}
__name(locate, "locate");
async function byTid(env, owner, tid, kind) {
  const row = await findTid(await readIndexFor(env, owner, tid), owner, tid, retentionPolicy(env).tidRetentionMs);
  if (!row?.receipt_id || kind && row.kind !== kind) return [];
  const stored = await recordOf({ kind: row.kind, id: row.receipt_id })(env);
  return stored ? [stored] : [];
}
__name(byTid, "byTid");
var FindRequest = strictObject({
  id: optional(Id),
  tid: optional(Text("tid")),
  user: optional(Text("user")),
  user_tid: optional(Text("user_tid")),
  kind: Kind
});
var OPERATIONS2 = {
  me: {
    schema: strictObject({}),
    handle: /* @__PURE__ */ __name(async (c) => {
      const { email: email2, role } = c.var.staff;
      return { body: { email: email2, role, environment: c.env.ENVIRONMENT, can: CAN[role] }, target: "me" };
    }, "handle")
  },
  find: {
    schema: FindRequest,
    handle: /* @__PURE__ */ __name(async (c, query) => {
      const named = [query.id, query.tid, query.user].filter((x) => x !== void 0).length;
      if (named !== 1 || query.user_tid !== void 0 && query.user === void 0) {
        refuse3("id", "give exactly one of id, tid and user (user_tid with user)");
      }
      let found;
      if (query.id !== void 0) found = [await locate(c.env, query.id, query.kind)].filter((s) => s !== null);
      else if (query.tid !== void 0) found = await byTid(c.env, "partner:partner", query.tid, query.kind);
      else if (query.user_tid !== void 0) found = await byTid(c.env, `user:${query.user}`, query.user_tid, query.kind);
      else {
        const rows = (await ownerTids(c.env, `user:${query.user}`, FIND_LIMIT)).filter((row) => !query.kind || row.kind === query.kind);
        const stored = await Promise.all(rows.map((row) => recordOf({ kind: row.kind, id: row.receipt_id })(c.env)));
        found = stored.filter((s) => s !== null);
      }
      const results = found.map(summaryOf).sort((a, b) => b.created_at - a.created_at);
      const target = query.id ?? (query.tid ? `tid:${query.tid}` : `user:${query.user}${query.user_tid ? ` tid:${query.user_tid}` : ""}`);
      return { body: { results }, target };
    }, "handle")
  },
  record: {
    schema: strictObject({ id: Id, kind: Kind }),
    handle: /* @__PURE__ */ __name(async (c, { id, kind }) => {
      const stored = await locate(c.env, id, kind);
      if (!stored) throw new ApiError("receipt_not_found", "No receipt or transfer has this id.");
      return { body: await timelineOf(c.env, stored), target: id, receipt_id: id };
    }, "handle")
  },
  reveal: {
    schema: strictObject({ id: Id, kind: Kind, field: picklist(["phone", "account"], "field must be phone or account") }),
    handle: /* @__PURE__ */ __name(async (c, { id, kind, field }) => {
      const stored = await locate(c.env, id, kind);
      if (!stored) throw new ApiError("receipt_not_found", "No receipt or transfer has this id.");
      return { body: { value: revealed(stored, field) }, target: `${id} ${field}`, receipt_id: id };
    }, "handle")
  },
  statements: {
    schema: strictObject({ after: optional(Day), limit: optional(pipe(number(), integer(), minValue(1), maxValue(100)), 31) }),
    handle: /* @__PURE__ */ __name(async (c, { after, limit }) => {
      const page2 = await listStatements(c.env, after, limit);
      const statements = page2.statements.map((s) => ({
        ...s,
        files: { csv: `/console/files/statements/${s.date}.csv`, json: `/console/files/statements/${s.date}.json` }
      }));
      return { body: { statements, has_more: page2.has_more }, target: after ? `statements before ${after}` : "statements" };
    }, "handle")
  },
  statement: {
    schema: strictObject({ date: Day }),
    handle: /* @__PURE__ */ __name(async (c, { date }) => {
      const object2 = await c.env.STATEMENTS.get(`statements/${date}.json`);
      if (!object2) throw new ApiError("not_found", `No statement of ${date} is written.`);
      const statement = await object2.json();
      return { body: { date, totals: statement.totals ?? [], mismatches: statement.mismatches ?? [] }, target: date };
    }, "handle")
  },
  // The GET route below serves a statement's file; its permission is this name's.
  statement_file: null,
  fiscal_pending: {
    schema: strictObject({ after: optional(Id), limit: optional(pipe(number(), integer(), minValue(1), maxValue(100)), 20) }),
    handle: /* @__PURE__ */ __name(async (c, query) => {
      const page2 = await fiscalPendingPage(c.env, query);
      if (!page2) refuse3("after", "after must be the id of a receipt the list showed");
      return { body: page2, target: "fiscal_pending" };
    }, "handle")
  },
  resend: {
    schema: strictObject({ event_id: Id }),
    handle: /* @__PURE__ */ __name(async (c, { event_id }) => {
      const event = await resendEvent(c.env, event_id);
      return { body: { resent: 1 }, target: event_id, receipt_id: event.data.object?.id };
    }, "handle")
  },
  resend_failed: {
    schema: strictObject({ from: Millis("from"), to: Millis("to") }),
    handle: /* @__PURE__ */ __name(async (c, { from, to }) => {
      if (to < from) refuse3("to", "to must not be before from");
      if (to - from > RESEND_SPAN_MS) refuse3("to", "to must be at most 31 days after from");
      const { rows } = await listLoggedEvents(c.env, { delivery: "failed", limit: RESEND_LIMIT });
      let resent = 0;
      for (const row of rows) {
        const created2 = decodeTime(row.id);
        if (created2 < from || created2 > to) continue;
        await resendEvent(c.env, row.id);
        resent++;
      }
      return { body: { resent }, target: `failed ${from}..${to}` };
    }, "handle")
  },
  erasures: {
    schema: strictObject({}),
    handle: /* @__PURE__ */ __name(async (c) => {
      const { results } = await c.env.DB.prepare(
        "SELECT user, requested_at, done_at, cursor FROM erasures ORDER BY requested_at DESC LIMIT 100"
      ).all();
      const requests = results.map((row) => {
        const progress = row.cursor ? JSON.parse(row.cursor) : {};
        const parts2 = Object.values(progress);
        return {
          user_masked: row.user.length <= 4 ? "*".repeat(row.user.length) : `${row.user.slice(0, 2)}${"*".repeat(row.user.length - 4)}${row.user.slice(-2)}`,
          requested_at: row.requested_at,
          done_at: row.done_at,
          state: row.done_at !== null ? "done" : "in_progress",
          progress: { steps_done: parts2.filter((p) => p === true).length, steps_started: parts2.length }
        };
      });
      return { body: { requests }, target: "erasures" };
    }, "handle")
  },
  charts: {
    schema: strictObject({ hours: picklist([1, 6, 24], "hours must be 1, 6 or 24") }),
    handle: /* @__PURE__ */ __name(async (c, { hours }) => ({ body: await chartsFor(c.env, hours, clock.now()), target: `charts ${hours}h` }), "handle")
  }
};
function decodeTime(id) {
  const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let time2 = 0;
  for (const char of id.slice(4, 14)) time2 = time2 * 32 + ALPHABET.indexOf(char);
  return time2;
}
__name(decodeTime, "decodeTime");
function refuse3(path, message2) {
  throw new ApiError("invalid_request", "The request does not match the schema.", { details: [{ path, message: message2 }] });
}
__name(refuse3, "refuse");
async function audit(c, entry) {
  const { email: email2, role } = c.var.staff;
  try {
    await auditStaff(c.env, { email: email2, role: role ?? "none", request_id: c.var.requestId, ...entry });
  } catch (err) {
    log("error", "staff_audit_failed", { action: entry.action, error: err instanceof Error ? err.message : String(err) });
    throw new ApiError("not_ready", "The audit trail could not record this; nothing is answered that it cannot record. Retry shortly.");
  }
}
__name(audit, "audit");
async function staffOf(c) {
  const staff = await identifyStaff(c.env, c);
  c.set("staff", staff);
  return staff;
}
__name(staffOf, "staffOf");
async function allow(c, operation2, target) {
  const { role } = c.var.staff;
  if (role && may(role, operation2)) return;
  await audit(c, { action: `console.${operation2}`, target, outcome: "forbidden" });
  throw new ApiError(
    "forbidden",
    role ? `The ${role} role may not use ${operation2}.` : "STAFF_ROLES gives this identity no role in the console; ask the partner's operator."
  );
}
__name(allow, "allow");
var SIGN_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console: development sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Development sign-in</h1>
<p>Production signs staff in through Cloudflare Access; this page exists only under <code>npm run dev</code>.</p>
<form method="post" action="/console/dev-sign-in">
<p><label for="email">Email</label> <input id="email" name="email" type="email" required autocomplete="email"></p>
<p><label for="role">Role</label> <select id="role" name="role">${ROLES.map((r) => `<option value="${r}">${r}</option>`).join("")}</select></p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>`;
var NOT_SIGNED_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console: sign in</title></head>
<body><main><h1>Sign in through Cloudflare Access</h1><p>This console is reached through the partner's Cloudflare Access application.</p></main></body></html>`;
var SignIn = strictObject({
  email: pipe(string("email must be a string"), trim(), toLowerCase(), email("email must be an email"), maxLength(255)),
  role: picklist(ROLES, `role must be one of ${ROLES.join(", ")}`)
});
function backOffice() {
  const app2 = new Hono3();
  app2.use("*", csrf());
  app2.get("/dev-sign-in", (c) => {
    if (!devSignInOffered(c.env)) throw new ApiError("not_found", "No such path.");
    return c.html(SIGN_IN_PAGE);
  });
  app2.post("/dev-sign-in", async (c) => {
    if (!devSignInOffered(c.env)) throw new ApiError("not_found", "No such path.");
    const form = await c.req.parseBody().catch(() => ({}));
    const parsed = safeParse(SignIn, { email: form.email, role: form.role });
    if (!parsed.success) refuseBody(SignIn, form, parsed.issues);
    const token = await signDevToken(c.env, parsed.output.email, parsed.output.role);
    setCookie(c, ACCESS_COOKIE, token, { path: "/console", httpOnly: true, sameSite: "Strict", maxAge: DEV_SESSION_SECONDS });
    return c.redirect("/console/", 303);
  });
  const page2 = /* @__PURE__ */ __name(async (c) => {
    try {
      const staff = await staffOf(c);
      if (!staff.role) throw new ApiError("forbidden", "STAFF_ROLES gives this identity no role in the console.");
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "unauthorized") throw err;
      if (devSignInOffered(c.env)) return c.redirect("/console/dev-sign-in", 303);
      return c.html(NOT_SIGNED_IN_PAGE, 401);
    }
    const path = c.req.path === "/console" ? "/console/" : c.req.path;
    const response = await c.env.ASSETS.fetch(new URL(path, c.req.url), { method: "GET" });
    if (response.status === 404) throw new ApiError("not_found", "No such page of the console.");
    await audit(c, { action: "console.page", target: path, outcome: "ok" });
    return new Response(response.body, {
      status: response.status,
      headers: { ...Object.fromEntries(response.headers), "cache-control": "no-store" }
    });
  }, "page");
  app2.get("/files/statements/:file", async (c) => {
    await staffOf(c);
    const file = c.req.param("file");
    await allow(c, "statement_file", file);
    const response = await statementFile(c);
    await audit(c, { action: "console.statement_file", target: file, outcome: "ok" });
    return response;
  });
  app2.post("/api/:name", requireJson, limitBody, async (c, next) => {
    await staffOf(c);
    await next();
  });
  app2.post("/api/:name", parseJson, async (c) => {
    const name = c.req.param("name");
    const spec = Object.hasOwn(OPERATIONS2, name) ? OPERATIONS2[name] : null;
    if (!spec) throw new ApiError("not_found", `No console operation ${name}.`);
    const body = await c.req.json();
    const target = typeof body?.id === "string" ? body.id : name;
    await allow(c, name, target);
    const parsed = safeParse(spec.schema, body);
    if (!parsed.success) {
      await audit(c, { action: `console.${name}`, target, outcome: "invalid_request" });
      refuseBody(spec.schema, body, parsed.issues);
    }
    let handled;
    try {
      handled = await spec.handle(c, parsed.output);
    } catch (err) {
      const code = err instanceof ApiError ? err.code : "internal_error";
      await audit(c, { action: `console.${name}`, target, outcome: code });
      throw err;
    }
    await audit(c, {
      action: `console.${name}`,
      target: handled.target,
      outcome: "ok",
      ...handled.receipt_id ? { receipt_id: handled.receipt_id } : {}
    });
    return c.json(handled.body, 200, { "cache-control": "no-store" });
  });
  app2.all("/api/*", () => {
    throw new ApiError("method_not_allowed", "Console operations are POST /console/api/<name>.", { headers: { Allow: "POST" } });
  });
  app2.get("/", page2);
  app2.get("/*", page2);
  return app2;
}
__name(backOffice, "backOffice");

// src/d1/schema-version.ts
var NEWEST_MIGRATION = "0010_event_log_ring.sql";

// src/upstream/normalize.ts
var isObject3 = /* @__PURE__ */ __name((value) => typeof value === "object" && value !== null && !Array.isArray(value), "isObject");
function toMillis(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  if (value > 0 && value < 1e11) return value * 1e3;
  return value;
}
__name(toMillis, "toMillis");
var num2 = /* @__PURE__ */ __name((value, fallback = 0) => typeof value === "number" && Number.isFinite(value) ? value : fallback, "num");
var str = /* @__PURE__ */ __name((value) => typeof value === "string" ? value : null, "str");
function maskedCard(value) {
  const s = str(value);
  return s === null ? null : maskDigitRuns(s);
}
__name(maskedCard, "maskedCard");
function accountEntries(value) {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject3).map((entry) => ({
    key: String(entry.key ?? ""),
    value: String(entry.value ?? ""),
    ...typeof entry.label === "string" ? { label: entry.label } : {}
  }));
}
__name(accountEntries, "accountEntries");
function merchant(value) {
  const m = isObject3(value) ? value : {};
  const { fields, ...rest } = m;
  const kept = fields === void 0 ? m : Array.isArray(fields) ? { ...m, fields: fields.filter(isObject3) } : rest;
  return { ...kept, merchant_id: num2(m.merchant_id), merchant_name: String(m.merchant_name ?? "") };
}
__name(merchant, "merchant");
function readable(raw2, idKey) {
  if (!isObject3(raw2)) return false;
  const id = raw2[idKey];
  return typeof id === "string" && id.length > 0 && isKnownState(raw2.state) && (raw2.amount === void 0 || Number.isSafeInteger(raw2.amount));
}
__name(readable, "readable");
function normalizeReceipt(raw2) {
  if (!readable(raw2, "id") || !Number.isSafeInteger(raw2.amount)) return void 0;
  return {
    tid: String(raw2.tid ?? raw2.tId ?? ""),
    id: String(raw2.id),
    state: raw2.state,
    create_date: toMillis(raw2.create_date) ?? 0,
    pay_date: toMillis(raw2.pay_date) ?? 0,
    cancel_date: toMillis(raw2.cancel_date) ?? 0,
    error: str(raw2.error),
    type: num2(raw2.type, 1),
    description: str(raw2.description),
    merchant: merchant(raw2.merchant),
    account: accountEntries(raw2.account),
    ofd: isObject3(raw2.ofd) ? raw2.ofd : null,
    amount: num2(raw2.amount),
    init_amount: num2(raw2.init_amount),
    currency: num2(raw2.currency, 860),
    commission: num2(raw2.commission ?? raw2.comission),
    is_verify: raw2.is_verify === true,
    rrn: str(raw2.rrn),
    card_number: maskedCard(raw2.card_number)
  };
}
__name(normalizeReceipt, "normalizeReceipt");
var REDUCED_OFD_KEYS = ["id", "code", "message", "terminalId", "receiptId", "time", "fiscalSign", "qrCodeUrl"];
function normalizeReducedReceipt(raw2) {
  const full = normalizeReceipt(raw2);
  if (!full) return void 0;
  const { cancel_date: _c, is_verify: _v, rrn: _r, card_number: _n, ...reduced } = full;
  const ofd = reduced.ofd ? Object.fromEntries(REDUCED_OFD_KEYS.filter((k) => k in reduced.ofd).map((k) => [k, reduced.ofd[k]])) : null;
  return { ...reduced, error: reduced.error ?? "", merchant: { ...reduced.merchant, fields: reduced.merchant.fields ?? [] }, ofd };
}
__name(normalizeReducedReceipt, "normalizeReducedReceipt");
function party(value) {
  const p = isObject3(value) ? value : {};
  return {
    masked_pan: maskedCard(p.masked_pan) ?? "",
    ...typeof p.holder_name === "string" ? { holder_name: p.holder_name } : {},
    amount: num2(p.amount),
    currency: num2(p.currency, 860),
    commission: num2(p.commission ?? p.comission),
    phone: str(p.phone)
    // `token` is deliberately dropped: the gateway never echoes or stores card tokens.
  };
}
__name(party, "party");
function normalizeTransfer(raw2) {
  if (!readable(raw2, "receipt_id")) return void 0;
  return {
    tid: String(raw2.tid ?? raw2.tId ?? ""),
    receipt_id: String(raw2.receipt_id),
    description: str(raw2.description),
    state: raw2.state,
    type: num2(raw2.type, 6),
    created_date: toMillis(raw2.created_date) ?? 0,
    pay_date: toMillis(raw2.pay_date),
    cancel_date: toMillis(raw2.cancel_date),
    sender: party(raw2.sender),
    receiver: party(raw2.receiver),
    error: str(raw2.error),
    ofd: isObject3(raw2.ofd) ? raw2.ofd : null,
    is_verify: raw2.is_verify === true
  };
}
__name(normalizeTransfer, "normalizeTransfer");
function normalizeAuthorize(raw2, id) {
  if (!isObject3(raw2) || typeof raw2.wait !== "number" || !Number.isFinite(raw2.wait) || raw2.wait < 0) return void 0;
  return { id, sent: true, phone: String(raw2.phone ?? ""), wait: raw2.wait };
}
__name(normalizeAuthorize, "normalizeAuthorize");

// src/upstream/client.ts
var ERROR_MAP = {
  VALIDATION_ERROR: { code: "invalid_request" },
  RECEIPT_NOT_FOUND: { code: "receipt_not_found", message: "No such receipt." },
  MERCHANT_NOT_FOUND: {
    code: "invalid_request",
    message: "Unknown merchant.",
    details: [{ path: "merchant_id", message: "unknown merchant" }]
  },
  RATE_NOT_FOUND: {
    code: "invalid_request",
    message: "Unknown rate.",
    details: [{ path: "rate_id", message: "unknown rate_id" }]
  },
  TID_DUPLICATE: { code: "tid_conflict", message: "This tid is already used at the payment service." },
  AMOUNT_OUT_OF_RANGE: { code: "amount_out_of_range", message: "The amount is outside the merchant's limits (min_amount, max_amount)." },
  OTP_REQUIRED: { code: "otp_required", message: "This payment needs the OTP sent by authorize." },
  OTP_INVALID: { code: "otp_invalid", message: "The OTP is wrong." },
  OTP_ATTEMPTS_EXCEEDED: {
    code: "otp_attempts_exhausted",
    message: "The payment service says the OTP guesses for this receipt are used up: it is cancelled. Create a new one."
  },
  RECEIPT_CANCELLED: { code: "receipt_cancelled", message: "The receipt is cancelled." },
  RECEIPT_ALREADY_PAID: { code: "receipt_already_paid", message: "The receipt is already paid." },
  RECEIPT_NOT_HELD: { code: "receipt_not_held", message: "The receipt holds no amount to confirm." },
  CANCEL_NOT_ALLOWED: { code: "cancel_not_allowed", message: "The payment service refuses to cancel this receipt." },
  HOLD_NOT_ENABLED: { code: "hold_not_enabled", message: "The hold function is not enabled for this partner." },
  INSUFFICIENT_FUNDS: { code: "card_declined", decline_reason: "insufficient_funds", message: "Card declined: insufficient funds." },
  RECEIVER_UNAVAILABLE: {
    code: "card_declined",
    decline_reason: "receiver_unavailable",
    message: "Transfer declined: the receiver card cannot take it."
  },
  CARD_DECLINED: { code: "card_declined", decline_reason: "declined", message: "Card declined." },
  OTP_RESEND_TOO_SOON: { code: "otp_resend_too_soon", message: "Wait before asking for another OTP." },
  OTP_EXPIRED: {
    code: "otp_expired",
    message: "No OTP was sent for this receipt, or it expired: call authorize again. This did not count as a guess."
  },
  CANCEL_ACCESS_DENIED: {
    code: "forbidden",
    message: "The payment service does not let this partner cancel receipts: ask the payment service's support to cancel it, giving the receipt id and the reason."
  }
};
var NOT_JUDGED = /* @__PURE__ */ new Set([
  "OTP_EXPIRED",
  "UNAUTHORIZED",
  "BUSY",
  "VALIDATION_ERROR",
  "RECEIPT_NOT_FOUND",
  "RECEIPT_CANCELLED",
  "RECEIPT_ALREADY_PAID"
]);
var MAX_UPSTREAM_MESSAGE = 200;
var UpstreamClient = class {
  static {
    __name(this, "UpstreamClient");
  }
  #env;
  #requestId;
  #timeoutMs;
  /** `timeoutMs` shortens the deployment's UPSTREAM_TIMEOUT_MS for this client's calls (readiness probes). */
  constructor(env, requestId2, timeoutMs) {
    this.#env = env;
    this.#requestId = requestId2;
    this.#timeoutMs = timeoutMs;
  }
  // --- receipts -------------------------------------------------------------
  createReceipt(input) {
    return this.#call("receipt/create", input, normalizeReceipt);
  }
  authorize(id, card) {
    const path = "token" in card ? "receipt/authorize" : "receipt/anonymous/authorize";
    return this.#call(path, { id, card }, (raw2) => normalizeAuthorize(raw2, id));
  }
  pay(id, card, otp) {
    return this.#call("receipt/pay", { id, card, ...otp === void 0 ? {} : { otp } }, (raw2) => sameId(normalizeReceipt(raw2), id));
  }
  anonymousPay(id, card, otp) {
    return this.#call("receipt/anonymous/pay", { id, card, otp }, (raw2) => sameId(normalizeReducedReceipt(raw2), id));
  }
  holdConfirm(id) {
    return this.#call("receipt/hold-confirm", { id }, (raw2) => sameId(normalizeReceipt(raw2), id));
  }
  async cancel(id, reason, cancelledBy) {
    const result = await this.#call("receipt/cancel", { id, reason, cancelledBy }, (raw2) => sameId(normalizeReceipt(raw2), id));
    if (!result.ok && result.upstreamCode === "CANCEL_ACCESS_DENIED") {
      result.failure.message = `The payment service does not let this partner cancel receipts, and nothing was cancelled: ask the payment service's support to cancel receipt ${id}, giving this receipt id and the reason for the cancel.`;
    }
    return result;
  }
  checkId(id) {
    return this.#call("receipt/check-id", { id }, (raw2) => sameId(normalizeReceipt(raw2), id));
  }
  // --- transfers ------------------------------------------------------------
  createTransfer(input) {
    return this.#call("a2c/create", input, normalizeTransfer);
  }
  payTransfer(id, otp) {
    return this.#call("a2c/pay", { id, ...otp === void 0 ? {} : { otp } }, (raw2) => sameTransfer(normalizeTransfer(raw2), id));
  }
  getTransfer(id) {
    return this.#call("a2c/get-by-id", { id }, (raw2) => sameTransfer(normalizeTransfer(raw2), id));
  }
  // --- transport ------------------------------------------------------------
  async #call(path, body, parse2) {
    const config = readConfig(this.#env);
    const started = Date.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), Math.min(config.upstreamTimeoutMs, this.#timeoutMs ?? Number.POSITIVE_INFINITY));
    const request = new Request(`${config.upstreamBaseUrl}/api/v1/partner/${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${config.upstreamApiKey}`,
        "x-request-id": this.#requestId
      },
      body: JSON.stringify(body),
      signal: deadline.signal
    });
    let response;
    let raw2;
    try {
      response = await (this.#env.UPSTREAM ? this.#env.UPSTREAM.fetch(request) : fetch(request));
      raw2 = await response.json().catch(() => void 0);
    } catch {
      const timedOut = deadline.signal.aborted;
      this.#log(path, started, timedOut ? "timeout" : "network_error");
      return timedOut ? unknownOutcome("upstream_timeout", "The payment service did not answer in time.") : unknownOutcome("upstream_error", "The payment service could not be reached, or the connection broke.");
    } finally {
      clearTimeout(timer);
    }
    if (response.ok) {
      const value = parse2(raw2);
      this.#log(path, started, value === void 0 ? "unreadable" : "ok", response.status);
      if (value === void 0) return unknownOutcome("upstream_error", "The payment service sent an answer the gateway cannot read.");
      return { ok: true, value };
    }
    const envelope = typeof raw2 === "object" && raw2 !== null ? raw2 : {};
    const upstreamCode = typeof envelope.error?.code === "string" ? String(redact(envelope.error.code)).slice(0, MAX_UPSTREAM_MESSAGE) : `HTTP_${response.status}`;
    this.#log(path, started, upstreamCode, response.status);
    const receipt = envelope.receipt === void 0 ? void 0 : normalizeReceipt(envelope.receipt);
    const transfer = envelope.transfer === void 0 ? void 0 : normalizeTransfer(envelope.transfer);
    const after = { ...receipt ? { receipt } : {}, ...transfer ? { transfer } : {} };
    const unjudged = /* @__PURE__ */ __name((failure2) => ({ ok: false, outcome: "rejected", judged: false, upstreamCode, failure: failure2, ...after }), "unjudged");
    if (response.status === 429 || response.status === 503) {
      const retryAfter = Number(response.headers.get("retry-after"));
      return unjudged({
        code: "upstream_unavailable",
        message: "The payment service is busy or down and did nothing; retry after the time given.",
        upstream_code: upstreamCode,
        retry_after: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1
      });
    }
    if (response.status >= 500) {
      const failure2 = unknownOutcome("upstream_error", "The payment service failed to handle the request.");
      failure2.failure.upstream_code = upstreamCode;
      return failure2;
    }
    if (response.status === 401 || upstreamCode === "UNAUTHORIZED") {
      return unjudged({ code: "upstream_error", message: "The payment service refused the gateway's own credential.", upstream_code: upstreamCode });
    }
    const mapping = ERROR_MAP[upstreamCode];
    if (!mapping) {
      const carriesOtp = "otp" in body;
      const said = typeof envelope.error?.message === "string" ? String(redact(envelope.error.message)).slice(0, MAX_UPSTREAM_MESSAGE) : "";
      const outcome = carriesOtp ? "Nothing was paid, but the OTP counts as a guess: the payment service may have judged it." : "Nothing was done.";
      return unjudged({
        code: "upstream_refused",
        message: `The payment service refused the request with ${upstreamCode}${said ? `: ${said}` : ""}. ${outcome}`,
        upstream_code: upstreamCode
      });
    }
    const { message: message2, ...rest } = mapping;
    const failure = {
      ...rest,
      message: message2 ?? "The payment service refused the request.",
      upstream_code: upstreamCode
    };
    if (failure.decline_reason) metric(this.#env, "card_declined", { operation: path, outcome: failure.decline_reason });
    if (failure.code === "otp_invalid" && typeof envelope.attempts_left === "number") failure.attempts_left = envelope.attempts_left;
    if (failure.code === "otp_resend_too_soon") failure.retry_after = Number(response.headers.get("retry-after")) || 1;
    if (failure.code === "amount_out_of_range") {
      if (typeof envelope.min_amount === "number") failure.min_amount = envelope.min_amount;
      if (typeof envelope.max_amount === "number") failure.max_amount = envelope.max_amount;
    }
    return { ok: false, outcome: "rejected", judged: !NOT_JUDGED.has(upstreamCode), failure, upstreamCode, ...after };
  }
  #log(path, started, outcome, status) {
    const ms = Date.now() - started;
    noteUpstreamCall(this.#requestId, { path, ...status === void 0 ? {} : { status }, outcome, ms });
    metric(this.#env, "upstream_call", { operation: path, outcome: outcomeClass(outcome, status), ms });
  }
};
function outcomeClass(outcome, status) {
  if (outcome === "ok" || outcome === "unreadable" || outcome === "timeout") return outcome;
  if (outcome === "network_error") return "network";
  if (status === 429 || status === 503) return "busy";
  if (status !== void 0 && status >= 500) return "failed";
  if (status === 401 || outcome === "UNAUTHORIZED") return "unauthorized";
  return "refused";
}
__name(outcomeClass, "outcomeClass");
var sameId = /* @__PURE__ */ __name((body, id) => body?.id === id ? body : void 0, "sameId");
var sameTransfer = /* @__PURE__ */ __name((body, id) => body?.receipt_id === id ? body : void 0, "sameTransfer");
function unknownOutcome(code, message2) {
  return { ok: false, outcome: "unknown", judged: true, failure: { code, message: message2 } };
}
__name(unknownOutcome, "unknownOutcome");

// src/http/readiness.ts
var READINESS_TIMEOUT_MS = 2e3;
var READINESS_DATABASES = MAX_CONNECTIONS - 1;
async function probeUpstream(env, requestId2) {
  const result = await new UpstreamClient(env, requestId2, READINESS_TIMEOUT_MS).checkId("readyz-probe");
  if (result.ok || result.failure.code === "receipt_not_found") return { ok: true };
  if (result.upstreamCode === "UNAUTHORIZED" || result.failure.upstream_code === "UNAUTHORIZED") {
    return { ok: false, kind: "upstream", problem: "the upstream refused the gateway's credential (UPSTREAM_API_KEY)" };
  }
  return { ok: false, kind: "upstream", problem: `the upstream did not answer the probe (${result.failure.code})` };
}
__name(probeUpstream, "probeUpstream");
var migrationNumber = /* @__PURE__ */ __name((name) => /^\d+/.exec(name)?.[0] ?? name, "migrationNumber");
async function probeD1(binding, db) {
  let timer = null;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve("late"), READINESS_TIMEOUT_MS);
  });
  const needs = migrationNumber(NEWEST_MIGRATION);
  const behind = /* @__PURE__ */ __name((at) => ({ ok: false, kind: "schema", problem: `db ${binding}: schema at ${at}, code needs ${needs}` }), "behind");
  try {
    const answer = await Promise.race([
      db.prepare("SELECT name, (SELECT COUNT(*) FROM d1_migrations WHERE name = ?1) AS applied FROM d1_migrations ORDER BY id DESC LIMIT 1").bind(NEWEST_MIGRATION).first(),
      late
    ]);
    if (answer === "late") return { ok: false, kind: "d1", problem: `D1 (${binding}) did not answer within ${READINESS_TIMEOUT_MS} ms` };
    if (answer === null) return behind("none");
    return answer.applied === 1 ? { ok: true } : behind(migrationNumber(answer.name));
  } catch (err) {
    if (err instanceof Error && /no such table: d1_migrations/.test(err.message)) return behind("none");
    return { ok: false, kind: "d1", problem: `D1 (${binding}) refused a query` };
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}
__name(probeD1, "probeD1");
function databases(env) {
  const all = /* @__PURE__ */ new Map([["DB", env.DB]]);
  for (const { binding, db } of allShards(env)) all.set(binding, db);
  return [...all];
}
__name(databases, "databases");
var probedDatabases = /* @__PURE__ */ __name((env, at) => probeSample(databases(env), READINESS_DATABASES, at), "probedDatabases");
async function checkReadiness(env, requestId2) {
  const probes = await Promise.all([probeUpstream(env, requestId2), ...probedDatabases(env, Date.now()).map(([binding, db]) => probeD1(binding, db))]);
  const failed = probes.filter((probe2) => !probe2.ok);
  if (failed.length > 0) {
    const problems = failed.map((probe2) => probe2.problem);
    note("warn", "not_ready", { request_id: requestId2, problems });
    for (const kind of new Set(failed.map((probe2) => probe2.kind))) metric(env, "readiness_failed", { operation: kind });
    throw new ApiError("not_ready", `Not ready: ${problems.join("; ")}.`, { retry_after: 5 });
  }
  return { ok: true, upstream: "ok", db: "ok" };
}
__name(checkReadiness, "checkReadiness");

// src/api/schemas.ts
setGlobalMessage((issue) => issue.kind === "schema" ? `expected ${issue.expected ?? issue.type}` : `invalid ${issue.type}`);
var MAX_AMOUNT = Number.MAX_SAFE_INTEGER;
var int32 = /* @__PURE__ */ __name(() => metadata({ format: "int32" }), "int32");
var int64 = /* @__PURE__ */ __name(() => metadata({ format: "int64" }), "int64");
var Int = /* @__PURE__ */ __name((description2) => description2 === void 0 ? pipe(number(), integer(), int64()) : pipe(number(), integer(), int64(), description(description2)), "Int");
var bounded = /* @__PURE__ */ __name((max) => metadata({ maxLength: max }), "bounded");
var codePoints = /* @__PURE__ */ __name((value) => [...value].length, "codePoints");
var MaxText = /* @__PURE__ */ __name((max, message2) => [check((value) => codePoints(value) <= max, message2), metadata({ maxLength: max })], "MaxText");
var RECEIPT_STATE_NAMES = { 0: "created", 4: "paid", 5: "held", 21: "cancelled", 57: "awaiting_supplier" };
var RECEIPT_STATES = [0, 4, 5, 21, 57];
var TRANSFER_STATES = [0, 4, 21];
var IDEMPOTENCY_KEY_PATTERN = "^[\\x21-\\x7E](?:[\\x20-\\x7E]{0,253}[\\x21-\\x7E])?$";
var typed = /* @__PURE__ */ __name((type) => metadata({ type }), "typed");
var Tid = pipe(
  string(),
  regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    "tid must be 1-64 ASCII characters: letters A-Z or a-z, digits, '.', '_', ':' or '-', starting with a letter or digit"
  ),
  bounded(64),
  description(
    "The caller's own transaction id, ASCII only: unique per caller (the partner's tids and each user's are separate spaces, rule 9); receipts and transfers share the space."
  )
);
var ReceiptId = pipe(
  string(),
  regex(/^[A-Za-z0-9_-]{1,64}$/, "id must be 1-64 characters: letters, digits, '_' or '-'"),
  bounded(64),
  description("Receipt id returned by create (`id`, or `receipt_id` for transfers).")
);
var Amount = pipe(
  number("amount must be a number"),
  integer("amount must be an integer number of tiyin"),
  minValue(1, "amount must be positive"),
  maxValue(MAX_AMOUNT, "amount must be at most 2^53-1"),
  int64(),
  description("Amount in tiyin (1/100 of a sum).")
);
var Currency = pipe(
  literal(860, "currency must be 860 (UZS)"),
  metadata({ type: "integer", format: "int32" }),
  description("ISO 4217 numeric code; only 860 (UZS) is supported.")
);
var AnswerCurrency = /* @__PURE__ */ __name(() => pipe(number(), integer(), int32(), description("ISO 4217 numeric code: 860 (UZS).")), "AnswerCurrency");
var SmallInt = /* @__PURE__ */ __name((description2) => description2 === void 0 ? pipe(number(), integer(), int32()) : pipe(number(), integer(), int32(), description(description2)), "SmallInt");
var PositiveId = /* @__PURE__ */ __name((name) => pipe(
  number(`${name} must be a number`),
  integer(`${name} must be an integer`),
  minValue(1, `${name} must be positive`),
  maxValue(MAX_AMOUNT, `${name} is too large`),
  int64()
), "PositiveId");
var CardToken = pipe(
  string(),
  regex(/^[A-Za-z0-9_.:=+/-]{1,256}$/, "card token must be 1-256 URL-safe characters"),
  bounded(256),
  description("Card token issued by the payment service. Never stored or logged by the gateway.")
);
function passesLuhn(digits2) {
  let sum = 0;
  for (let i = 0; i < digits2.length; i++) {
    let d = digits2.charCodeAt(digits2.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
__name(passesLuhn, "passesLuhn");
var CardNumber = pipe(
  string(),
  regex(/^\d{16,19}$/, "card number must be 16 to 19 digits"),
  bounded(19),
  check(passesLuhn, "card number fails the Luhn check"),
  description("Card number (PAN), 16-19 digits, Luhn-valid. Never stored or logged by the gateway.")
);
function isValidExpiry(expire, now = /* @__PURE__ */ new Date()) {
  const match2 = /^(\d{2})(\d{2})$/.exec(expire);
  if (!match2) return false;
  const year = 2e3 + Number(match2[1]);
  const month = Number(match2[2]);
  if (month < 1 || month > 12) return false;
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}
__name(isValidExpiry, "isValidExpiry");
var Expire = pipe(
  string(),
  regex(/^\d{2}(0[1-9]|1[0-2])$/, "expire must be yyMM"),
  bounded(4),
  check((value) => isValidExpiry(value), "expire must be a real month (yyMM) that has not passed"),
  description("Card expiry, yyMM. Never stored or logged by the gateway.")
);
var Otp = pipe(
  string("otp must be a string of digits"),
  regex(/^\d{4,8}$/, "otp must be 4 to 8 digits"),
  bounded(8),
  description("One-time code sent to the card owner. Never stored or logged by the gateway.")
);
var Text2 = /* @__PURE__ */ __name((max) => pipe(string(), ...MaxText(max, `must be at most ${max} characters`)), "Text");
var ACCOUNT_ENTRY_FIELDS = {
  key: pipe(string(), minLength(1, "key must not be empty"), ...MaxText(64, "key must be at most 64 characters")),
  value: Text2(256),
  label: optional(Text2(128))
};
var AccountEntry = pipe(
  object(ACCOUNT_ENTRY_FIELDS),
  title("AccountEntry"),
  description("One field of the merchant's account form (a phone number, a contract number).")
);
var AccountEntryInput = pipe(
  strictObject(ACCOUNT_ENTRY_FIELDS),
  title("AccountEntryInput"),
  description("One field of the merchant's account form (a phone number, a contract number), as a create sends it: no other field.")
);
var EXAMPLE_CARD = { number: "8600000000000007", expire: "3012" };
var CreateReceiptRequest = pipe(
  strictObject({
    tid: Tid,
    amount: Amount,
    merchant_id: pipe(PositiveId("merchant_id"), description("Merchant id at the payment service.")),
    account: pipe(array(AccountEntryInput), maxLength(20, "at most 20 account entries")),
    description: optional(Text2(256)),
    is_hold: optional(boolean("is_hold must be a boolean"), false),
    currency: optional(Currency, 860)
  }),
  examples([
    {
      tid: "order-2026-0001",
      amount: 15e5,
      merchant_id: 1001,
      account: [{ key: "phone", value: "998901234567" }],
      description: "Mobile top-up",
      is_hold: false,
      currency: 860
    }
  ]),
  title("CreateReceiptRequest")
);
var ReceiptIdRequest = pipe(strictObject({ id: ReceiptId }), examples([{ id: EXAMPLE_RECEIPT_ID }]), title("ReceiptIdRequest"));
var TokenCard = pipe(strictObject({ token: CardToken }), title("TokenCard"));
var NumberCard = pipe(strictObject({ number: CardNumber, expire: Expire }), title("NumberCard"));
var Nullable = /* @__PURE__ */ __name((s) => nullable(s), "Nullable");
var MerchantField = pipe(
  looseObject({}),
  metadata({ additionalProperties: true }),
  title("MerchantField"),
  description("One of the merchant's fields, as the payment service sends it: what an entry holds is not published, so it is passed on whole.")
);
var Merchant = pipe(
  object({
    merchant_id: Int(),
    merchant_name: string(),
    category_id: optional(Int()),
    category_name: optional(string()),
    logo_url: optional(Nullable(string())),
    min_amount: optional(Int("Tiyin.")),
    max_amount: optional(Int("Tiyin.")),
    fields: optional(
      pipe(
        array(MerchantField),
        description("The merchant's fields as the payment service sends them (its anonymous pay answer shows an empty list).")
      )
    )
  }),
  title("MerchantDetails")
);
var SaleItem = looseObject({
  title: string(),
  unit_price: Int("Tiyin."),
  count: SmallInt(),
  spic: string(),
  pinfl: string(),
  tin: string(),
  package_code: string(),
  units: SmallInt(),
  vat_percent: SmallInt(),
  discount: Int("Tiyin.")
});
var RefundItem = looseObject({
  name: string(),
  price: Int("Tiyin."),
  quantity: SmallInt(),
  sum: Int("Tiyin.")
});
var Ofd = pipe(
  looseObject({
    id: optional(string()),
    code: optional(SmallInt()),
    message: optional(string()),
    terminalId: optional(string()),
    receiptId: optional(Int()),
    time: optional(pipe(string(), description("As the fiscal operator sends it: compact Tashkent time (Sale) or ISO 8601 (Refund)."))),
    fiscalSign: optional(string()),
    qrCodeUrl: optional(string()),
    partnerFiscaliztionUrl: optional(pipe(string(), description("Spelled as the payment service spells it."))),
    tin: optional(string()),
    spic: optional(string()),
    vatRate: optional(SmallInt("Percent.")),
    label: optional(string()),
    packageCode: optional(string()),
    type: optional(picklist(["Sale", "Refund"])),
    merchantInfo: optional(
      looseObject({ name: optional(string()), tin: optional(string()), address: optional(string()), pinfl: optional(string()) })
    ),
    items: optional(union([array(SaleItem), array(RefundItem)]))
  }),
  title("OfdDetails"),
  description("Fiscal data (OFDResponseDetails) as the payment service sends it; present for a Sale. Fields beyond these are passed through.")
);
var StateOf = /* @__PURE__ */ __name((title2, states, description2) => pipe(
  number(),
  integer(),
  metadata({
    type: "integer",
    format: "int32",
    enum: states,
    "x-enum-varnames": states.map((state) => RECEIPT_STATE_NAMES[state])
  }),
  title(title2),
  description(description2)
), "StateOf");
var ReceiptState = StateOf("ReceiptState", RECEIPT_STATES, "0 created, 4 paid, 5 held, 21 cancelled, 57 awaiting the supplier's response.");
var TransferState = StateOf("TransferState", TRANSFER_STATES, "As the payment service reports it: 0 created, 4 paid, 21 cancelled.");
var ReceiptFields = object({
  tid: string(),
  id: string(),
  state: ReceiptState,
  create_date: Int("Milliseconds since the epoch."),
  pay_date: Int("Milliseconds; 0 while unpaid."),
  cancel_date: Int("Milliseconds; 0 while not cancelled."),
  error: Nullable(string()),
  type: SmallInt("The payment service's receipt type: 1 for a payment."),
  description: Nullable(string()),
  merchant: Merchant,
  account: array(AccountEntry),
  ofd: Nullable(Ofd),
  amount: Int("Tiyin."),
  init_amount: Int("Tiyin."),
  currency: AnswerCurrency(),
  commission: Int("Tiyin."),
  is_verify: boolean(),
  rrn: Nullable(string()),
  card_number: Nullable(pipe(string(), description("Masked: first 6 and last 4 digits.")))
});
var Receipt = pipe(ReceiptFields, title("Receipt"), examples([RECEIPT_CREATED]));
var ReducedReceipt = pipe(
  omit(ReceiptFields, ["cancel_date", "is_verify", "rrn", "card_number"]),
  title("ReducedReceipt"),
  examples([REDUCED_RECEIPT_PAID])
);
var AuthorizeResult = pipe(
  object({
    id: string(),
    sent: pipe(literal(true), typed("boolean")),
    phone: pipe(string(), description("Masked phone the OTP went to.")),
    wait: Int("Milliseconds before a resend is allowed.")
  }),
  title("AuthorizeResult"),
  examples([AUTHORIZED])
);
var Party = pipe(
  object({
    masked_pan: string(),
    holder_name: optional(string()),
    amount: Int("Tiyin."),
    currency: AnswerCurrency(),
    commission: Int("Tiyin."),
    phone: Nullable(string())
  }),
  title("Party")
);
var TransferOfd = pipe(
  looseObject({
    url: optional(pipe(string(), description("Address of the fiscal receipt."))),
    terminal_id: optional(pipe(string(), description("The fiscal terminal's id."))),
    fiscal_sign: optional(pipe(string(), description("Fiscal sign.")))
  }),
  title("TransferOfd"),
  description("Fiscal data of a transfer (null until there is any). Fields beyond these are passed through as the payment service sends them.")
);
var TransferReceipt = pipe(
  object({
    tid: string(),
    receipt_id: pipe(string(), description("ULID")),
    description: Nullable(string()),
    state: TransferState,
    type: SmallInt("The payment service's receipt type: 6 for a card-to-card transfer."),
    created_date: Int("Milliseconds since the epoch."),
    pay_date: Nullable(Int("Milliseconds.")),
    cancel_date: Nullable(Int("Milliseconds.")),
    sender: Party,
    receiver: Party,
    error: Nullable(string()),
    ofd: Nullable(TransferOfd),
    is_verify: boolean()
  }),
  title("TransferReceipt"),
  examples([TRANSFER_CREATED])
);
var ErrorFields = object({
  code: pipe(
    string(),
    description("The contract's error code (ErrorCode); each response lists the codes its status carries on that operation.")
  ),
  message: pipe(string(), description("For a developer; never contains a card number or OTP.")),
  user_message: pipe(
    string(),
    description(
      "For the app's user, to show as it is: what happened and what to do, in the language Accept-Language prefers among `uz` (Uzbek, Latin script), `uz-Cyrl` (Uzbek, Cyrillic script), `ru` and `en` (the default), which Content-Language names. The ErrorCode component's `x-user-messages` lists every code's texts, and `x-decline-reason-user-messages` card_declined's by `decline_reason`."
    )
  ),
  request_id: pipe(string(), description("The X-Request-Id of this call.")),
  details: optional(
    pipe(
      array(object({ path: string(), message: string() })),
      metadata({ maxItems: 20 }),
      description("invalid_request: what is wrong, at most 20 entries.")
    )
  ),
  attempts_left: optional(pipe(number(), integer(), int32(), description("otp_invalid: guesses left."))),
  upstream_code: optional(pipe(string(), description("Errors that came from the payment service: its code."))),
  decline_reason: optional(pipe(string(), description("card_declined: why, e.g. `insufficient_funds`."))),
  min_amount: optional(Int("amount_out_of_range: the merchant's minimum, tiyin.")),
  max_amount: optional(Int("amount_out_of_range: the merchant's maximum, tiyin.")),
  rule: optional(
    pipe(
      picklist(RISK_RULE_NAMES),
      description(
        "risk_limited: the limit of rule 13 the call is past (RISK_LIMITS names each): a user's uses of a card, a card's users, a user's payer or receiver cards, a user's OTP sends in all or to a card."
      )
    )
  )
});
var ErrorBody = pipe(object({ error: ErrorFields }), title("Error"));

// src/audit/bloom.ts
var BLOOM_BYTES = 5376;
var BITS = BLOOM_BYTES * 8;
var HASHES = 7;
function positions(key) {
  const a = fnv1a(key);
  const b = fnv1a(key, 2538058380) | 1;
  return Array.from({ length: HASHES }, (_, i) => a + Math.imul(i, b) >>> 0).map((h) => h % BITS);
}
__name(positions, "positions");
function bloomOf(keys) {
  const bits = new Uint8Array(BLOOM_BYTES);
  for (const key of keys) for (const bit of positions(key)) bits[bit >> 3] |= 1 << (bit & 7);
  return bits;
}
__name(bloomOf, "bloomOf");
function mayHold(bits, key) {
  if (bits.length !== BLOOM_BYTES) return true;
  return positions(key).every((bit) => (bits[bit >> 3] & 1 << (bit & 7)) !== 0);
}
__name(mayHold, "mayHold");
function toBase64(bytes2) {
  let text2 = "";
  for (const byte of bytes2) text2 += String.fromCharCode(byte);
  return btoa(text2);
}
__name(toBase64, "toBase64");
function fromBase64(text2) {
  try {
    return Uint8Array.from(atob(text2), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}
__name(fromBase64, "fromBase64");

// src/audit/batch.ts
var AUDIT_PREFIX = "audit/";
var HEADS_PREFIX = "audit/heads/";
var GENESIS = "0".repeat(64);
var HOUR_MS2 = 36e5;
var hourOf = /* @__PURE__ */ __name((at) => new Date(at).toISOString().slice(0, 13), "hourOf");
var hourStart = /* @__PURE__ */ __name((hour) => Date.parse(`${hour}:00:00.000Z`), "hourStart");
var nextHour = /* @__PURE__ */ __name((hour) => hourOf(hourStart(hour) + HOUR_MS2), "nextHour");
var hourPrefix = /* @__PURE__ */ __name((hour) => `${AUDIT_PREFIX}${hour.slice(0, 10)}/${hour.slice(11, 13)}/`, "hourPrefix");
var batchKey = /* @__PURE__ */ __name((hour, chain, seq) => `${hourPrefix(hour)}${chain}-${String(seq).padStart(10, "0")}.ndjson`, "batchKey");
var headKey = /* @__PURE__ */ __name((chain) => `${HEADS_PREFIX}${chain}.json`, "headKey");
function parseBatchKey(key) {
  const match2 = /^audit\/(\d{4}-\d{2}-\d{2})\/(\d{2})\/(w\d+)-(\d{10})\.ndjson$/.exec(key);
  return match2 ? { hour: `${match2[1]}T${match2[2]}`, chain: match2[3], seq: Number(match2[4]) } : null;
}
__name(parseBatchKey, "parseBatchKey");
function formatBatch(header2, entries) {
  return `${[JSON.stringify({ batch: header2 }), ...entries.map((entry) => JSON.stringify(entry))].join("\n")}
`;
}
__name(formatBatch, "formatBatch");
function parseBatch(text2) {
  const lines2 = text2.split("\n").filter((line) => line !== "");
  let header2 = null;
  const entries = [];
  lines2.forEach((line, i) => {
    try {
      const value = JSON.parse(line);
      if (i === 0 && value && typeof value === "object" && "batch" in value) header2 = value.batch;
      else entries.push(value);
    } catch {
    }
  });
  return { header: header2, entries };
}
__name(parseBatch, "parseBatch");
async function sha256Hex(text2) {
  const bytes2 = typeof text2 === "string" ? new TextEncoder().encode(text2) : text2;
  const digest = await crypto.subtle.digest("SHA-256", bytes2);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
__name(sha256Hex, "sha256Hex");
function batchMetadata(entries) {
  const times2 = entries.map((entry) => entry.at);
  return {
    from: String(times2.length ? Math.min(...times2) : 0),
    to: String(times2.length ? Math.max(...times2) : 0),
    bloom: toBase64(bloomOf(entries.flatMap(filterKeys)))
  };
}
__name(batchMetadata, "batchMetadata");

// src/audit/search.ts
var MAX_LISTS = 48;
var MAX_READS = 24;
var MAX_SPAN_MS = 31 * 864e5;
var encode3 = /* @__PURE__ */ __name((position) => [position.hour, position.at ?? "", position.id ?? ""].join("|"), "encode");
function decodeAfter(after) {
  const [hour, at, ...rest] = after.split("|");
  const id = rest.join("|");
  if (!hour || !/^\d{4}-\d{2}-\d{2}T\d{2}$/.test(hour) || Number.isNaN(hourStart(hour))) return null;
  if (at === "" && id === "") return { hour, at: null, id: null };
  if (!at || !/^\d{1,15}$/.test(at) || id === "") return null;
  return { hour, at: Number(at), id };
}
__name(decodeAfter, "decodeAfter");
var byTime = /* @__PURE__ */ __name((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0), "byTime");
async function searchAudit(bucket, query) {
  const [key, matches] = query.receipt_id !== void 0 ? [`r:${query.receipt_id}`, (line) => line.receipt_id === query.receipt_id] : query.user !== void 0 ? [`u:${query.user}`, (line) => line.user === query.user] : [`s:${query.staff.toLowerCase()}`, (line) => line.staff === query.staff.toLowerCase()];
  const start = query.after ? decodeAfter(query.after) : null;
  let hour = start?.hour ?? hourOf(query.from);
  let position = start?.at != null ? start : null;
  const last = hourOf(query.to);
  const found = [];
  let lists = 0;
  let reads = 0;
  while (hour <= last) {
    if (lists >= MAX_LISTS || reads >= MAX_READS) return { entries: found, has_more: true, next: encode3(position ?? { hour, at: null, id: null }) };
    const candidates = [];
    let cursor;
    do {
      const listed = await bucket.list({ prefix: hourPrefix(hour), cursor, include: ["customMetadata"] });
      lists++;
      for (const object2 of listed.objects) {
        const meta = object2.customMetadata ?? {};
        const from = Number(meta.from ?? 0);
        const to = Number(meta.to ?? Number.MAX_SAFE_INTEGER);
        if (to === 0 && from === 0) continue;
        if (to < query.from || from > query.to) continue;
        if (meta.bloom !== void 0 && !mayHold(fromBase64(meta.bloom), key)) continue;
        candidates.push(object2.key);
      }
      cursor = listed.truncated ? listed.cursor : void 0;
    } while (cursor);
    if (reads > 0 && reads + candidates.length > MAX_READS)
      return { entries: found, has_more: true, next: encode3(position ?? { hour, at: null, id: null }) };
    const lines2 = /* @__PURE__ */ new Map();
    for (const name of candidates) {
      const object2 = await bucket.get(name);
      reads++;
      if (!object2) continue;
      for (const line of parseBatch(await object2.text()).entries) {
        if (line && typeof line === "object" && matches(line) && line.at >= query.from && line.at <= query.to) lines2.set(line.id, line);
      }
    }
    const ordered = [...lines2.values()].sort(byTime).filter((line) => !position || position.at === null || byTime(line, { at: position.at, id: position.id }) > 0);
    for (let i = 0; i < ordered.length; i++) {
      found.push(ordered[i]);
      if (found.length === query.limit) {
        const more = i + 1 < ordered.length || hour < last;
        return more ? { entries: found, has_more: true, next: encode3({ hour, at: ordered[i].at, id: ordered[i].id }) } : { entries: found, has_more: false };
      }
    }
    hour = nextHour(hour);
    position = null;
  }
  return { entries: found, has_more: false };
}
__name(searchAudit, "searchAudit");

// src/audit/erase.ts
var FORGET_MS = 864e5;
var ERASE_LISTS_PER_RUN = 150;
var ERASE_REWRITES_PER_RUN = 25;
async function eraseInAudit(env, user, cursor, budget = { lists: ERASE_LISTS_PER_RUN, rewrites: ERASE_REWRITES_PER_RUN }) {
  const state = cursor ? JSON.parse(cursor) : { days: null };
  let lists = 0;
  let rewrites = 0;
  if (state.days === null) {
    for (let i = 0; i < auditChains(env); i++) await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(`w${i}`)).forget(user, Date.now() + FORGET_MS);
    for (let i = 0; i < auditChains(env); i++) await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(`w${i}`)).flush();
    const days = [];
    let listCursor;
    do {
      const listed = await env.AUDIT.list({ prefix: "audit/", delimiter: "/", cursor: listCursor });
      lists++;
      for (const prefix of listed.delimitedPrefixes) if (/^audit\/\d{4}-\d{2}-\d{2}\/$/.test(prefix)) days.push(prefix.slice(6, 16));
      listCursor = listed.truncated ? listed.cursor : void 0;
    } while (listCursor);
    state.days = days.sort().reverse();
  }
  const key = `p:${user}`;
  while (state.days.length > 0) {
    if (lists >= budget.lists || rewrites >= budget.rewrites) return JSON.stringify(state);
    const listed = await env.AUDIT.list({ prefix: `audit/${state.days[0]}/`, cursor: state.list, include: ["customMetadata"] });
    lists++;
    for (const object2 of listed.objects) {
      if (rewrites >= budget.rewrites) return JSON.stringify(state);
      const bloom = object2.customMetadata?.bloom;
      const place = parseBatchKey(object2.key);
      if (!place || bloom !== void 0 && !mayHold(fromBase64(bloom), key)) continue;
      if (await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(place.chain)).rewrite(object2.key, user)) rewrites++;
    }
    if (listed.truncated) state.list = listed.cursor;
    else {
      state.days.shift();
      delete state.list;
    }
  }
  if (rewrites > 0) log("info", "audit_erasure_run", { batches_rewritten: rewrites });
  return true;
}
__name(eraseInAudit, "eraseInAudit");

// src/stores.ts
var ERASURE_REQUESTS_KEPT_DAYS = 30;
var STORES = [
  {
    name: "record",
    title: "the record",
    place: { kind: "durable-object", binding: "RECEIPTS", className: "ReceiptObject", tables: ["record"] },
    holds: "a receipt's or transfer's last known body (card numbers masked), the create's answer kept for replays, its owner and tid, the OTP ledger, the write-ahead note naming who asked, rule 12's and rule 14's marks, and its audit trail (operations, actors, request ids, outcomes)",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/record/store.ts", "src/record/schema.ts", "src/record/receipt-object.ts"],
    erasure: { by: "record", how: "the body and the create's answer erased, and every body stored after it (the record is marked erased)" },
    end: {
      by: "alarm",
      settings: ["RECORD_RETENTION_DAYS"],
      how: "its own alarm deletes the object's storage `RECORD_RETENTION_DAYS` after it became final with nothing owed, once the event log lists none of its events"
    }
  },
  {
    name: "record_events",
    title: "the record's outbox",
    place: { kind: "durable-object", binding: "RECEIPTS", className: "ReceiptObject", tables: ["record"], column: "events" },
    holds: "the body of every event the record published, byte for byte as sent (what events/list, events/resend and the sweep send)",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/record/outbox-rows.ts", "src/record/outbox.ts"],
    erasure: { by: "record", how: "every event's body erased; later events carry the erased body" },
    end: { by: "record", how: "deleted with its record" }
  },
  {
    name: "idempotency_keys",
    title: "the answers kept for Idempotency-Keys",
    place: {
      kind: "durable-object",
      binding: "RECEIPTS",
      className: "ReceiptObject",
      tables: ["record"],
      column: "keys",
      madeBefore: ["idempotency"]
    },
    holds: "for each key a caller used on the record (rule 11): the caller, the operation, the request's keyed fingerprint and the answer as it was sent",
    personal: ["phone", "account values", "user sub"],
    code: ["src/record/keys.ts", "src/record/schema.ts"],
    erasure: { by: "record", how: "every kept answer erased; an answer kept after it is built from the erased record" },
    end: { by: "record", how: "deleted with its record" }
  },
  {
    name: "tid_index",
    title: "the tid index",
    // tid_index and its ring of slots, RING_SLOTS of them (src/d1/ring.ts, src/tids/tid-index.ts; migrations/0009_tid_ring.sql).
    place: {
      kind: "d1",
      databases: "all",
      tables: ["tid_index", ...Array.from({ length: 8 }, (_, slot) => `tid_index_${slot}`), "tid_walk"]
    },
    holds: "one row per tid claimed: its owner (`partner` or `user:<sub>`), the tid, the upstream's tid, the request's keyed fingerprint, the record it created; and where retention's walk of tid_index stands",
    personal: ["user sub", "tid"],
    code: ["src/tids/tid-index.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value; the erasure finds the user's records through its rows" },
    end: {
      by: "cron",
      settings: ["TID_RETENTION_DAYS"],
      how: "forgotten `TID_RETENTION_DAYS` after the create was answered: in tid_index, deleted by the cron's retention (the walk's cursor is rewritten in place); in the ring of slots, dropped with its slot by the cron once every row it took is past the window, the rows still within it moved first"
    }
  },
  {
    name: "tid_cache",
    title: "the tid cache",
    place: { kind: "cache", cache: "default" },
    holds: "each data center's copy of completed tids, under a SHA-256 of owner and tid: the kind, the record, the keyed fingerprint, when it was answered",
    personal: [],
    code: ["src/tids/tid-cache.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value, and no owner or tid but their hash" },
    end: {
      by: "platform",
      settings: ["TID_RETENTION_DAYS"],
      how: "the cache drops an entry after a day at most (its max-age), and none is believed past `TID_RETENTION_DAYS`"
    }
  },
  {
    name: "event_log",
    title: "the event log",
    // `events`, then its ring of slots (src/d1/ring.ts slotNames: `events_0` .. `events_7`; test/unit/stores.test.ts holds the list to the migrations).
    place: { kind: "d1", databases: "all", tables: ["events", ...Array.from({ length: 8 }, (_, slot) => `events_${slot}`), "events_cursors"] },
    holds: "each event's delivery: its id, record, type, status, attempts and next attempt (no body); for a statement line (rule 16), its change, amount, commission, merchant, tid, owner, state and fiscal sign; and where the sweep's and retention's walks stand",
    personal: ["user sub", "tid"],
    code: ["src/events/log-database.ts", "src/events/sweep.ts"],
    erasure: { by: "nothing", why: "no bodies (the records keep them), and of a statement line no phone number or `account` value" },
    end: {
      by: "cron",
      settings: ["EVENTS_DELIVERED_RETENTION_DAYS", "EVENTS_UNDELIVERED_RETENTION_DAYS"],
      how: "deleted by the cron's retention `EVENTS_DELIVERED_RETENTION_DAYS` after the event's creation once delivered, `EVENTS_UNDELIVERED_RETENTION_DAYS` if never: in `events` row by row (the walks' two cursors are rewritten in place), in a slot by dropping the slot whole once every event it took is past the first, those still within their window copied forward first"
    }
  },
  {
    name: "event_attempts",
    title: "the delivery attempts",
    place: { kind: "d1", databases: "all", tables: ["event_attempts"] },
    holds: "each delivery attempt of each event, for the back office: when, the receiver's HTTP status, whether it was a 2xx, and its answer trimmed to 200 characters and redacted (card numbers and runs of 12 digits or more masked)",
    personal: [],
    code: ["src/events/log-database.ts"],
    erasure: { by: "nothing", why: "no body and no `account` value; a receiver's answer is redacted before it is kept, phone numbers masked" },
    end: {
      by: "cron",
      settings: ["EVENTS_DELIVERED_RETENTION_DAYS", "EVENTS_UNDELIVERED_RETENTION_DAYS"],
      how: "deleted by the cron's retention once the longer of `EVENTS_DELIVERED_RETENTION_DAYS` and `EVENTS_UNDELIVERED_RETENTION_DAYS` has passed since the event's creation"
    }
  },
  {
    name: "event_queue",
    title: "the events queue",
    place: { kind: "queue", bindings: ["EVENTS"] },
    holds: "each event on its way to `WEBHOOK_URL`, its body as the record published it",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/events/publish.ts", "src/events/pager.ts", "src/events/delivery.ts"],
    erasure: {
      by: "unreachable",
      why: "a message cannot be changed once sent; one still retrying carries the body as published until it is delivered or dead-lettered"
    },
    end: { by: "platform", how: "consumed once delivered or dead-lettered (production's retries end about 29 hours after the first attempt)" }
  },
  {
    name: "event_pagers",
    title: "the event pagers",
    place: { kind: "durable-object", binding: "EVENT_PAGER", className: "EventPager", tables: [] },
    holds: "events on their way to the events queue, in memory only (nothing stored), until their page is sent",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/events/pager.ts"],
    erasure: {
      by: "unreachable",
      why: "an event waits there at most a second (`PAGE_WAIT_MS`), in the object's memory, then travels on as the events queue's"
    },
    end: { by: "platform", how: "sent to the events queue within a second, or lost with the object's memory (the sweep sends the event again)" }
  },
  {
    name: "fiscal_list",
    title: "the fiscal list",
    place: { kind: "d1", databases: "first", tables: ["fiscal_pending"] },
    holds: "the receipts whose fiscal data is missing (rule 14): id, tid, amount, state, since when, reads done",
    personal: ["tid"],
    code: ["src/d1/fiscal-list.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value" },
    end: { by: "record", how: "its record deletes the row once the fiscal data shows, and is not deleted itself while the row is there" }
  },
  {
    name: "erasure_requests",
    title: "the erasure requests",
    place: { kind: "d1", databases: "first", tables: ["erasures"] },
    holds: "each users/erase request: the user's sub, when it was made, how far the cron has got, when it was done",
    personal: ["user sub"],
    code: ["src/cron/erasure.ts"],
    erasure: { by: "nothing", why: "the request holds no phone number or `account` value" },
    end: {
      by: "cron",
      settings: [],
      how: `a done request is deleted by the cron's retention ${ERASURE_REQUESTS_KEPT_DAYS} days after it was made (the window of D1 Time Travel, within which a restore puts back the requests made since)`
    }
  },
  {
    name: "risk_counters",
    title: "rule 13's counters",
    place: { kind: "durable-object", binding: "RISK", className: "RiskObject", keys: ["c:<chunk>:<day>", "log"] },
    holds: "a few hundred shared objects (\"shard:<n>\"), each subject (a user, a card fingerprint) a part of one of a day's 512 chunks (keys) of the shard its name falls to, the part of its log counted that day: when each counted use leaves its window; a user's uses, OTP sends and receiver cards by keyed card fingerprint, a card's users by a keyed hash of each user (never a `sub`, but in the key of the user's own log); `log`: the previous release's one object per subject, which a shard reads the first time it meets the subject, and in a shard the end of its latest use (its guard against that release's alarm)",
    personal: ["user sub"],
    code: ["src/risk/risk-object.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value; card numbers only as keyed fingerprints" },
    end: {
      by: "alarm",
      settings: ["RISK_LIMITS"],
      how: "a shard's alarm deletes each day's chunk once every use it holds has left its window (by the end of the next day, and at most an hour for the alarm: a subject's part at most two days and an hour after its use), and the shard itself a day after its last use; a previous release's object deletes itself as that release did"
    }
  },
  {
    name: "rate_limits",
    title: "the rate limits",
    place: { kind: "rate-limit", bindings: ["LIMIT_AUTHORIZE_PER_USER", "LIMIT_AUTHORIZE_PER_IP", "LIMIT_PAY_PER_USER", "LIMIT_PAY_PER_IP"] },
    holds: "Cloudflare's counts of authorize and pay calls per user and per client address; the gateway stores nothing",
    personal: ["user sub", "client address"],
    code: ["src/http/rate-limit.ts"],
    erasure: { by: "nothing", why: "counts only" },
    end: { by: "platform", how: "each count ends with its limit's period (60 seconds)" }
  },
  {
    name: "metrics",
    title: "the metrics",
    place: { kind: "analytics-engine", binding: "METRICS" },
    holds: "data points of the on-call's numbers: operation names, outcome classes, counts and times",
    personal: [],
    code: ["src/metrics/metrics.ts"],
    erasure: { by: "nothing", why: "no personal data" },
    end: { by: "platform", how: "Workers Analytics Engine keeps data points three months" }
  },
  {
    name: "logs",
    title: "the logs",
    place: { kind: "logs" },
    holds: "the gateway's own lines (one per upstream call, delivery, warning, error and cron run): ids, codes, counts, with card data redacted",
    personal: [],
    code: ["src/shared/log.ts"],
    erasure: { by: "nothing", why: "no line carries a phone number, an `account` value or a user's sub" },
    end: { by: "platform", how: "Workers Logs keeps them seven days" }
  },
  {
    name: "audit_batches",
    title: "the audit trail",
    place: { kind: "r2", binding: "AUDIT" },
    holds: "rule 15's batches of NDJSON, hash-chained, and each chain's head: every record's audit entries (a create's with its tid, amount, merchant and `account`), every gateway call (its filters, never a body or key) and every staff action",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/audit/writer.ts", "src/audit/erase.ts"],
    erasure: {
      by: "cron",
      how: "every writer flushed, then each batch whose filter may hold the user's values rewritten by its writer with them masked, the rewrite recorded in its chain first"
    },
    end: {
      by: "platform",
      settings: ["AUDIT_RETENTION_DAYS"],
      how: "an R2 lifecycle rule `npm run deploy` sets deletes each batch `AUDIT_RETENTION_DAYS` after it was written (after an erasure's rewrite, counted from it)"
    }
  },
  {
    name: "audit_writers",
    title: "the audit trail's writers",
    place: { kind: "durable-object", binding: "AUDIT_WRITER", className: "AuditWriter", tables: ["pending", "head", "erased"] },
    holds: "entries appended and not yet flushed to R2 (as the batches hold them), each chain's head, and the users being erased (for a day)",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/audit/writer.ts"],
    erasure: {
      by: "unreachable",
      why: "an entry waits there at most `AUDIT_FLUSH_SECONDS`; the trail's eraser has every writer mask the user's values in what it is sent from then on, flushes every writer and masks the entries in R2"
    },
    end: {
      by: "alarm",
      settings: ["AUDIT_FLUSH_SECONDS"],
      how: "each entry deleted by the flush that writes its batch; the head is one row per chain"
    }
  },
  {
    name: "statements",
    title: "the statements",
    place: { kind: "r2", binding: "STATEMENTS" },
    holds: "rule 16's daily statements as CSV and JSON, and each day's summary: ids, tids, owners, merchants, amounts, states, times, fiscal signs",
    personal: ["user sub", "tid"],
    code: ["src/statements/statement-object.ts", "src/statements/uploads.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value" },
    end: {
      by: "platform",
      settings: ["AUDIT_RETENTION_DAYS"],
      how: "an R2 lifecycle rule `npm run deploy` sets deletes each file `AUDIT_RETENTION_DAYS` after it was written"
    }
  },
  {
    name: "statement_builders",
    title: "the statements' builders",
    place: { kind: "durable-object", binding: "STATEMENT", className: "StatementObject", tables: ["run", "tail"] },
    holds: "a day's statement being written: its cursors, totals, mismatches and the bytes short of a part",
    personal: ["user sub", "tid"],
    code: ["src/statements/statement-object.ts", "src/statements/run.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value" },
    end: {
      by: "alarm",
      settings: [],
      how: "deleted by its own alarm 8 days after the statement was written (a rebuild is refused once the event log no longer holds the day whole)"
    }
  }
];
var storesErasedBy = /* @__PURE__ */ __name((by) => STORES.filter((store2) => store2.erasure.by === by), "storesErasedBy");
var storesEndedBy = /* @__PURE__ */ __name((by) => STORES.filter((store2) => store2.end.by === by), "storesEndedBy");
function implementations(stores, map) {
  return stores.map((store2) => map[store2.name]);
}
__name(implementations, "implementations");

// src/cron/erasure.ts
var ERASE_RECORDS_PER_RUN = 50;
var REQUESTS_PER_RUN = 10;
var ERASE_QUERIES_PER_RUN = 200;
var CRON_ERASERS = {
  audit_batches: /* @__PURE__ */ __name((env, user, _now, cursor) => eraseInAudit(env, user, cursor), "audit_batches")
};
async function requestErasure(env, user, now) {
  await env.DB.prepare(
    `INSERT INTO erasures (user, requested_at, cursor, done_at) VALUES (?1, ?2, NULL, NULL)
     ON CONFLICT (user) DO UPDATE SET requested_at = excluded.requested_at, cursor = NULL, done_at = NULL`
  ).bind(user, now).run();
  log("info", "erasure_requested", { at: now });
  return { user, accepted_at: now };
}
__name(requestErasure, "requestErasure");
async function eraseRecord(env, row) {
  if (row.receipt_id !== null) await receiptStub(env, row.kind, row.receipt_id).erase();
}
__name(eraseRecord, "eraseRecord");
async function runErasures(env, now, budget = ERASE_RECORDS_PER_RUN) {
  const { results: open } = await env.DB.prepare("SELECT user, cursor FROM erasures WHERE done_at IS NULL ORDER BY requested_at LIMIT ?1").bind(REQUESTS_PER_RUN).all();
  let records = 0;
  let done = 0;
  let queries = 1;
  const spent = /* @__PURE__ */ __name(() => records >= budget || queries >= ERASE_QUERIES_PER_RUN, "spent");
  for (const request of open) {
    if (spent()) break;
    const progress = request.cursor ? JSON.parse(request.cursor) : {};
    const owner = `user:${request.user}`;
    for (const { binding, db } of allShards(env)) {
      while (progress[binding] !== true && !spent()) {
        const after = typeof progress[binding] === "string" ? progress[binding] : "";
        const limit = budget - records;
        const rows = await ownerRowsAfter(db, owner, after, limit);
        for (const row of rows) await eraseRecord(env, row);
        records += rows.length;
        queries++;
        progress[binding] = rows.length < limit ? true : rows[rows.length - 1].tid;
      }
    }
    let finished = allShards(env).every(({ binding }) => progress[binding] === true);
    if (finished) {
      for (const store2 of storesErasedBy("cron")) {
        const key = `store:${store2.name}`;
        if (progress[key] === true) continue;
        const [erase] = implementations([store2], CRON_ERASERS);
        const at = progress[key];
        progress[key] = await erase(env, request.user, now, typeof at === "string" ? at : void 0);
        finished = progress[key] === true && finished;
      }
    }
    if (finished) done++;
    queries++;
    await env.DB.prepare("UPDATE erasures SET cursor = ?1, done_at = ?2 WHERE user = ?3 AND requested_at <= ?4").bind(JSON.stringify(progress), finished ? now : null, request.user, now).run();
  }
  if (open.length > 0) log("info", "erasure_run", { now, records, requests_done: done, requests_open: open.length - done });
  return { records, done };
}
__name(runErasures, "runErasures");
async function deleteDoneErasures(db, before, limit) {
  const { meta } = await db.prepare("DELETE FROM erasures WHERE user IN (SELECT user FROM erasures WHERE done_at IS NOT NULL AND requested_at < ?1 LIMIT ?2)").bind(before, limit).run();
  return meta.changes;
}
__name(deleteDoneErasures, "deleteDoneErasures");

// src/events/examples.ts
var PUBLISHED = RECEIPT_CREATED.create_date + 6e4;
var EVENT_OBJECTS = {
  "receipt.created": [RECEIPT_CREATED, null],
  "receipt.paid": [RECEIPT_PAID, 0],
  "receipt.held": [RECEIPT_HELD, 0],
  "receipt.awaiting_supplier": [{ ...RECEIPT_PAID, state: 57, ofd: null }, 0],
  "receipt.cancelled": [RECEIPT_CANCELLED, 4],
  "receipt.otp_attempts_exhausted": [RECEIPT_CREATED, 0],
  "receipt.fiscalized": [RECEIPT_PAID, 4],
  "receipt.refund_fiscalized": [RECEIPT_CANCELLED, 21],
  "transfer.created": [TRANSFER_CREATED, null],
  "transfer.paid": [TRANSFER_PAID, 0],
  "transfer.cancelled": [{ ...TRANSFER_CREATED, state: 21, cancel_date: RECEIPT_CANCELLED.cancel_date }, 0],
  "transfer.otp_attempts_exhausted": [TRANSFER_CREATED, 0],
  "transfer.expired": [TRANSFER_CREATED, 0]
};
var CAUSES = {
  "transfer.expired": { reason: "expired", closed_at_edge: true }
};
var SEQUENCE = {
  "receipt.created": 1,
  "transfer.created": 1,
  "receipt.cancelled": 3,
  "receipt.fiscalized": 3,
  "receipt.refund_fiscalized": 4
};
function eventExample(type) {
  const [object2, previous2] = EVENT_OBJECTS[type];
  return {
    id: EXAMPLE_EVENT_ID,
    type,
    created: PUBLISHED,
    sequence: SEQUENCE[type] ?? 2,
    request_id: EXAMPLE_REQUEST_ID,
    data: { object_type: kindOfEvent(type), object: object2, owner: "partner", previous_state: previous2, ...CAUSES[type] }
  };
}
__name(eventExample, "eventExample");
var EVENT_PAGE = {
  events: [
    { ...eventExample("receipt.paid"), delivery: { status: "failed", attempts: 8, last_status: 500, last_error: "HTTP 500", delivered_at: null } }
  ],
  has_more: false
};
var EVENT_RESENT = eventExample("receipt.paid");

// src/events/schemas.ts
var EventId = pipe(
  string(),
  regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, "id must be evt_ followed by a ULID"),
  bounded(30),
  description("Event id: `evt_` and a ULID, so ids sort by time. The `webhook-id` of every delivery of the event.")
);
var EventTypeName = pipe(
  picklist(EVENT_TYPE_NAMES, "type must be an event type"),
  description(
    Object.entries(EVENT_TYPES).map(([type, when]) => `\`${type}\`: ${when}`).join("\n")
  )
);
var DeliveryStatusName = pipe(
  picklist(DELIVERY_STATUSES, "delivery must be pending, delivered or failed"),
  description("`pending`: queued or being retried; `delivered`: the receiver answered 2xx; `failed`: every retry failed (resend it).")
);
var typesOf = /* @__PURE__ */ __name((kind) => EVENT_TYPE_NAMES.filter((type) => kindOfEvent(type) === kind), "typesOf");
var TypeOf = /* @__PURE__ */ __name((kind) => pipe(
  picklist(typesOf(kind)),
  description(
    typesOf(kind).map((type) => `\`${type}\`: ${EVENT_TYPES[type]}`).join("\n")
  )
), "TypeOf");
var ObjectType = /* @__PURE__ */ __name((kind) => pipe(
  literal(kind),
  metadata({ type: "string" }),
  description(`\`${kind}\`: \`data.object\` is a ${kind === "receipt" ? "Receipt" : "Transfer receipt"}.`)
), "ObjectType");
var head = {
  id: EventId,
  created: Int("Milliseconds since the epoch."),
  sequence: pipe(
    number(),
    integer(),
    int64(),
    description(
      "Per receipt or transfer: 1, 2, ... Order of delivery is not guaranteed; ignore an event whose sequence is not above the last one applied."
    )
  ),
  request_id: pipe(string(), description("The X-Request-Id of the call that caused it (or of the gateway's own reconciliation)."))
};
var dataFields = {
  owner: pipe(string(), description("`partner`, or the `sub` of the user who owns it.")),
  reason: optional(
    pipe(
      picklist(["expired", "hold_expired", "otp_attempts_exhausted"]),
      description(
        "Why, where the gateway itself caused the change: `expired` (rule 12: unpaid RECEIPT_EXPIRY_HOURS after its creation), `hold_expired` (rule 12: held and not confirmed within HOLD_EXPIRY_DAYS), `otp_attempts_exhausted` (rule 2: the cancel that ends a receipt after three failed OTP guesses)."
      )
    )
  ),
  closed_at_edge: optional(
    pipe(
      boolean(),
      description(
        "True when the payment service refused the gateway's cancel (no cancel access, a QR merchant) or has no cancel (transfers): the record is closed at the gateway only, `object.state` is what the payment service shows, and the partner asks its support to cancel it."
      )
    )
  )
};
var previous = /* @__PURE__ */ __name((state) => pipe(nullable(state), description("The state before this change; null for a create.")), "previous");
var ReceiptEvent = pipe(
  object({
    ...head,
    type: TypeOf("receipt"),
    data: object({
      object_type: ObjectType("receipt"),
      object: Receipt,
      previous_state: previous(ReceiptState),
      ...dataFields
    })
  }),
  title("ReceiptEvent"),
  examples([eventExample("receipt.paid")]),
  description(
    "An event of a receipt (`receipt.*`): `data.object` is the whole Receipt as check-id answers it (masked card numbers only). After an anonymous pay too: its reduced answer is laid over the receipt as last stored, so the fields that answer lacks (`rrn`, `card_number`, ...) show what the gateway last read."
  )
);
var TransferEvent = pipe(
  object({
    ...head,
    type: TypeOf("transfer"),
    data: object({
      object_type: ObjectType("transfer"),
      object: TransferReceipt,
      previous_state: previous(TransferState),
      ...dataFields
    })
  }),
  title("TransferEvent"),
  examples([eventExample("transfer.paid")]),
  description(
    "An event of a card-to-card transfer (`transfer.*`): `data.object` is the Transfer receipt as a2c/get-by-id answers it (masked card numbers only)."
  )
);
var SCHEMA_OF = { receipt: "#/components/schemas/ReceiptEvent", transfer: "#/components/schemas/TransferEvent" };
var Event = pipe(
  variant("type", [ReceiptEvent, TransferEvent]),
  title("Event"),
  // `type` names the schema: generators make a union that a switch on `type` narrows.
  metadata({
    discriminator: { propertyName: "type", mapping: Object.fromEntries(EVENT_TYPE_NAMES.map((type) => [type, SCHEMA_OF[kindOfEvent(type)]])) }
  }),
  // Checked against this schema by test/docs/examples.test.ts.
  examples([eventExample("receipt.paid")]),
  description(
    "An event: one change of a receipt or transfer, POSTed as JSON to WEBHOOK_URL and listed by events/list. `type` (and `data.object_type`, the same for every event of a kind) tells a ReceiptEvent from a TransferEvent. The types grow: answer 2xx to a type you do not know (its `data.object_type` still says which object it carries)."
  )
);
var EventDelivery = object({
  status: DeliveryStatusName,
  attempts: pipe(number(), integer(), int32(), description("Delivery attempts so far, resends included.")),
  last_status: pipe(
    nullable(pipe(number(), integer(), int32())),
    description("The receiver's last HTTP status; null if it never answered (timeout, network error) or no attempt was made yet.")
  ),
  last_error: pipe(nullable(string()), description("Why the last attempt failed; null after a success.")),
  delivered_at: pipe(nullable(Int()), description("Milliseconds; when a delivery got a 2xx."))
});
var EventWithDelivery = intersect([Event, object({ delivery: EventDelivery })]);
var ListEventsResult = object({
  events: pipe(
    array(EventWithDelivery),
    metadata({ maxItems: 100 }),
    description("Newest first; at most `limit`.")
  ),
  has_more: pipe(boolean(), description("Older events match too: ask again with `after` set to the last id of this page."))
});

// src/operations/docs.ts
var prose = /* @__PURE__ */ __name((...sentences) => sentences.join(" "), "prose");
var DOCS = {
  // --- Receipts
  createReceipt: prose(
    "Creates a receipt at the payment service.",
    "The `tid` is unique per caller (the partner's tids and each user's are separate spaces, rule 9): an identical retry by the same caller answers the original receipt with `Idempotent-Replayed: true` and creates nothing; any other use of a known tid is `tid_conflict`.",
    "The original answer is kept 7 days (`TID_REPLAY_DAYS`): later, an identical retry is `tid_conflict` naming the receipt to read with check-id or check-tid; after 90 days (`TID_RETENTION_DAYS`) the gateway forgets the tid and the payment service's own refusal of a used tid answers `tid_conflict`.",
    "`is_hold` needs the hold function enabled in the deployment."
  ),
  authorizeReceipt: prose(
    "Sends a one-time code to the card owner.",
    "May be repeated to resend, once `wait` ms have passed (`otp_resend_too_soon` before), and at most 5 times per receipt.",
    "A user's send counts toward rule 13's limits: 20 a day for the user and 5 a day for the user and this card (`risk_limited` past either, with `Retry-After` from the user's own sends); the partner backend is exempt."
  ),
  authorizeReceiptAnonymous: prose(
    "As authorize, with the card given by number and expiry.",
    "Neither is stored or logged.",
    "A user's call is also a use of the card as the payer's (rule 13, as anonymous pay's)."
  ),
  payReceipt: prose(
    "Debits the card.",
    "`otp` is required when the receipt's `is_verify` is true.",
    "The third wrong OTP cancels the receipt (`otp_attempts_exhausted`); OTP submissions for one receipt are serialized (`operation_in_progress` for one that arrives while another is in flight).",
    "A receipt created with `is_hold` ends in state 5 (held)."
  ),
  payReceiptAnonymous: prose(
    "As pay, with the card given by number and expiry; the OTP is always required.",
    "Answers the reduced receipt (no `cancel_date`, `is_verify`, `rrn`, `card_number`).",
    "Rule 13 counts a user's uses of a card number as the payer's: 5 an hour and 10 a day per user and card, 5 cards a day per user, and 3 users a day per card, where a user the card already admitted is never refused; past a limit, `risk_limited` with `rule` and `Retry-After` from the caller's own window, before the payment service is called.",
    "A request refused before the gateway acts (its body, its Idempotency-Key, the caller's rights, a replay, a rate limit, the receipt's state) counts nothing; the partner backend is exempt."
  ),
  confirmHold: prose("Debits the held amount (state 5 to 4) and fiscalizes the sale.", "Needs the hold function enabled in the deployment."),
  cancelReceipt: prose(
    "Cancels a created, held or paid receipt (state 21).",
    "Refused in state 21 or 57 and for QR merchants (`cancel_not_allowed`).",
    "Users may cancel only unpaid receipts; cancelling a paid one is for the partner backend.",
    "A user's cancel tells the payment service the deployment's own name as `cancelledBy`, whatever the body says; the partner's sends the one it gives."
  ),
  checkReceiptById: prose(
    "Asks the payment service for the receipt as it stands now and answers it (while another operation on it is in flight, the gateway's latest view)."
  ),
  checkReceiptByTid: prose(
    "Finds the receipt through the gateway's tid index, then answers it as check-id does.",
    "Transfer tids are not receipts: use a2c/get-by-id."
  ),
  // --- Transfers (a2c)
  createTransfer: prose(
    "Creates a transfer receipt from the sender's card (token) to a receiver card (number).",
    "Transfer tids share the caller's tid space with receipts (same replay and conflict rules); `tId`, the upstream's spelling, is accepted for `tid`.",
    "When the answer's `is_verify` is true, a2c/pay needs the OTP sent to the sender.",
    "The sender's token is never echoed back.",
    "A user's `receiver_card` counts toward rule 13's distinct receiver cards of the user (20 a day, `risk_limited` past it) and toward nothing else: a card may receive from many people. Counted once the tid is the request's own, so a replay or a `tid_conflict` counts nothing, and a create refused by rule 13 frees its tid."
  ),
  payTransfer: prose(
    "Sends the money.",
    "`otp` is required when the transfer's `is_verify` is true.",
    "The third wrong OTP closes the transfer at the gateway: that answer and every later pay are `otp_attempts_exhausted`, and get-by-id shows the state the payment service reports (it has no cancel for transfers); OTP submissions are serialized; a paid transfer is never paid twice."
  ),
  getTransfer: prose(
    "Asks the payment service for the transfer as it stands now and answers it (while another operation on it is in flight, the gateway's latest view)."
  ),
  // --- The gateway's own (partner only)
  auditReceipt: prose(
    "Every operation on the record, oldest first: when, which operation, who (`partner`, `user:<sub>`, or `gateway` for its own reconciliation), the request id, the outcome (`ok` or the error code) and the state after it.",
    "No card data is ever in it."
  ),
  searchAudit: prose(
    "The audit trail kept in R2 for `AUDIT_RETENTION_DAYS` (a year), oldest first (rule 15): a receipt's or transfer's entries (`receipt_id`: the same entries receipt/audit shows while its record lives, and after its end), a user's (`user`), or a staff member's views and actions in the back office (`staff`), between `from` and `to` (milliseconds, at most 31 days apart), and every call to the gateway's own operations naming them.",
    "Entries appear within about a minute (`AUDIT_FLUSH_SECONDS`); no card data, key or token is ever in one, and a user's erasure masks their account values and phone numbers in them.",
    "Page with `after`: the `next` of the page before; a page reads a bounded slice of the trail, so it may hold fewer than `limit` entries while `has_more` is true."
  ),
  listStatements: prose(
    "The daily statements written (rule 16), newest first: each day in STATEMENT_TIMEZONE, its lines, checks and mismatches, and its totals per merchant and change.",
    "The files themselves: `GET /api/v1/gateway/statements/{date}.csv` and `.json`. Page with `after`: the last date of the page before."
  ),
  rebuildStatement: prose(
    "Writes the day's statement again from the event log (rule 16): the nightly run writes each day once, after midnight in STATEMENT_TIMEZONE; this starts it over (today's too, as far as it has gone: `complete` false, and the nightly run writes it again).",
    "Answers 202 at once (`state` building): the statement is written in steps (a day of a few thousand receipts within a second or two), the day's previous files served meanwhile; statements/list shows it `ready` when done. A day older than the event log keeps whole (EVENTS_DELIVERED_RETENTION_DAYS) is refused. Every rebuild is in the audit trail."
  ),
  listEvents: prose(
    "Events newest first, with how their delivery to WEBHOOK_URL stands, optionally only one receipt's (or transfer's), one type, or one delivery status.",
    "Page with `after`: the last id of the page before."
  ),
  resendEvent: prose(
    "Sends the event again, whatever its delivery status (typically `failed`), with the same `webhook-id`: its status is `pending` until that delivery's outcome.",
    "An unknown id is 404 `not_found`."
  ),
  eraseUser: prose(
    "Erases the user's personal data (rule 10): within 24 hours (in development within a minute) every phone number and `account` value of the receipts and transfers the user created is starred but its first and last two characters, in the tid index, the event log, the records and the audit trail in R2 (each batch's rewrite recorded in its chain); ids, amounts, states and times stay, and later events and answers carry the values erased.",
    "Answers 202 at once; asking again starts over (and takes in what the user created since)."
  ),
  listFiscalPending: prose(
    "The receipts whose fiscal receipt is still missing (rule 14), oldest first, so that they can be chased with the payment service: paid (state 4) with an `ofd` that shows no fiscal sign or QR address, or cancelled after they were paid (21) with no fiscal data of the refund.",
    "The gateway reads each again on its own (FISCAL_READS: in production 5 minutes, 1 hour and 24 hours after the payment or refund) until the data shows; then it stores it, sends `receipt.fiscalized` (or `receipt.refund_fiscalized`) and takes the receipt off the list. After the last scheduled read a receipt stays listed; a check-id that finds the data ends it the same way.",
    "Page with `after`: the last id of the page before (one that left the list meanwhile still marks the place)."
  )
};

// src/tids/tid-cache.ts
var MAX_AGE_SECONDS = 86400;
var available = /* @__PURE__ */ __name(() => typeof caches !== "undefined" && caches.default !== void 0, "available");
async function keyOf(owner, tid) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${owner}\0${tid}`)));
  const hex2 = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return new Request(`https://tid-cache.gateway.internal/v1/${hex2}`);
}
__name(keyOf, "keyOf");
async function rememberTid(owner, tid, entry, retentionMs) {
  if (!available()) return;
  const maxAge = Math.max(1, Math.min(MAX_AGE_SECONDS, Math.floor(retentionMs / 1e3)));
  try {
    await caches.default.put(
      await keyOf(owner, tid),
      new Response(JSON.stringify(entry), { headers: { "content-type": "application/json", "cache-control": `max-age=${maxAge}` } })
    );
  } catch {
  }
}
__name(rememberTid, "rememberTid");
async function recallTid(owner, tid, retentionMs, now = clock.now()) {
  if (!available()) return null;
  try {
    const hit = await caches.default.match(await keyOf(owner, tid));
    if (!hit) return null;
    const entry = await hit.json();
    return now - entry.answered_at < retentionMs ? entry : null;
  } catch {
    return null;
  }
}
__name(recallTid, "recallTid");

// src/operations/creation.ts
function conflict(row) {
  if (row?.receipt_id) {
    const { noun, readWith } = KINDS[row.kind];
    return new ApiError(
      "tid_conflict",
      `This tid already created ${noun} ${row.receipt_id} with another body: read it with ${readWith}, or create with a new tid.`
    );
  }
  if (row) return new ApiError("tid_conflict", "This tid is taken by a create with another body that is still in flight: use a new tid.");
  return new ApiError("tid_conflict", "This tid is already used by another request: use a new tid.");
}
__name(conflict, "conflict");
function compactedReplay(kind, recordId, replayMs) {
  const days = Math.round(replayMs / DAY_MS2 * 100) / 100;
  const { noun, readWith } = KINDS[kind];
  return new ApiError(
    "tid_conflict",
    `This tid already created ${noun} ${recordId}. The answer to that create is no longer kept (answers are kept ${days} days), so it cannot be replayed: read the ${noun} with ${readWith}.`
  );
}
__name(compactedReplay, "compactedReplay");
async function replay(env, kind, row) {
  const { replayMs } = retentionPolicy(env);
  if (row.receipt_id !== null && clock.now() - row.updated_at <= replayMs) {
    const kept = await receiptStub(env, kind, row.receipt_id).replay(row.owner);
    if (kept !== null) return JSON.parse(kept);
  }
  throw compactedReplay(kind, row.receipt_id, replayMs);
}
__name(replay, "replay");
function remember(env, row) {
  if (row.receipt_id === null) return Promise.resolve();
  const entry = { kind: row.kind, receipt_id: row.receipt_id, fingerprint: row.fingerprint, answered_at: row.updated_at };
  return rememberTid(row.owner, row.tid, entry, retentionPolicy(env).tidRetentionMs);
}
__name(remember, "remember");
async function createOnce(env, caller, requestId2, kind, input, after = () => void 0, admit = async () => null) {
  const config = readConfig(env);
  const isHold = kind.holdOf(input);
  if (isHold && !config.holdEnabled) throw new ApiError("hold_not_enabled", "The hold function is not enabled in this deployment.");
  const merchant2 = kind.merchantOf(input);
  const record = { isHold, qrMerchant: merchant2 !== void 0 && config.qrMerchantIds.has(merchant2) };
  const owner = ownerOf(caller);
  const request = { kind: kind.name, request: input };
  const wanted = {
    owner,
    tid: input.tid,
    upstreamTid: await upstreamTidFor(config.tidSecret, owner, input.tid),
    kind: kind.name,
    fingerprint: await fingerprint(config.tidSecret, request)
  };
  const formerFingerprints = await Promise.all(config.formerTidSecrets.map((key) => fingerprint(key, request)));
  const claiming = (async () => {
    const { binding: binding2, db: db2 } = await claimIndexFor(env, wanted);
    return {
      binding: binding2,
      db: db2,
      claim: await claimTid(db2, {
        ...wanted,
        formerFingerprints,
        leaseMs: leaseMs(config.upstreamTimeoutMs),
        windowMs: retentionPolicy(env).tidRetentionMs
      })
    };
  })();
  const settled = claiming.catch(() => void 0);
  const known = await recallTid(owner, input.tid, retentionPolicy(env).tidRetentionMs);
  if (known) {
    after(settled);
    const same = known.kind === kind.name && (known.fingerprint === wanted.fingerprint || formerFingerprints.includes(known.fingerprint));
    if (!same) throw conflict(known);
    const row = { owner, tid: input.tid, receipt_id: known.receipt_id, updated_at: known.answered_at };
    return { body: await replay(env, kind.name, row), replayed: true };
  }
  const { binding, db, claim } = await claiming;
  switch (claim.kind) {
    case "replay": {
      const body2 = await replay(env, kind.name, claim.row);
      after(remember(env, claim.row));
      return { body: body2, replayed: true };
    }
    case "conflict":
      throw conflict(claim.row);
    case "in_progress":
      throw new ApiError("tid_in_progress", "A create with this tid is still in flight; retry shortly.", {
        retry_after: claim.retryAfterSeconds
      });
  }
  const held = { owner, tid: input.tid, token: claim.token };
  const refused = await admit().catch(async (err) => {
    await (claim.takeover ? expireTid(db, held) : releaseTid(db, held));
    throw err;
  });
  if (refused) {
    await (claim.takeover ? expireTid(db, held) : releaseTid(db, held));
    throw ApiError.from(refused);
  }
  const upstreamTid = claim.upstreamTid;
  const upstream = new UpstreamClient(env, requestId2);
  const result = await kind.create(upstream, { ...input, tid: upstreamTid });
  let created2;
  if (result.ok) {
    created2 = result.value;
  } else {
    const existing = kind.bodyOf(result);
    if (claim.takeover && result.upstreamCode === "TID_DUPLICATE" && existing && kind.matches(existing, input)) {
      created2 = existing;
    } else {
      if (result.outcome === "unknown") {
        metric(env, "unknown_outcome", { operation: `${kind.name}/create` });
        await expireTid(db, held);
      } else await releaseTid(db, held);
      throw ApiError.from(result.failure);
    }
  }
  const body = kind.withTid(created2, input.tid);
  const receiptId = kind.idOf(body);
  const answeredAt = clock.now();
  try {
    await receiptStub(env, kind.name, receiptId).init({
      kind: kind.name,
      body,
      tid: input.tid,
      upstreamTid,
      owner,
      isHold: record.isHold,
      qrMerchant: record.qrMerchant,
      requestId: requestId2,
      completion: { binding, ...held, receiptId, answeredAt }
    });
  } catch (err) {
    log("error", "create_bookkeeping_failed", { request_id: requestId2, kind: kind.name, error: String(err) });
    await expireTid(db, held).catch(() => void 0);
    throw new ApiError("upstream_error", "The receipt was created but could not be recorded; retry with the same tid.");
  }
  after(
    completeTid(db, held, receiptId, answeredAt, retentionPolicy(env).tidRetentionMs, claim.table).then(
      () => remember(env, { owner, tid: input.tid, kind: kind.name, receipt_id: receiptId, fingerprint: wanted.fingerprint, updated_at: answeredAt }),
      (err) => log("error", "tid_completion_deferred", { request_id: requestId2, kind: kind.name, error: String(err) })
    )
  );
  return { body, replayed: false };
}
__name(createOnce, "createOnce");
async function createdBy(env, caller, kind, tid, user, after = () => void 0) {
  const { noun } = KINDS[kind];
  const notFound = new ApiError("receipt_not_found", `No ${noun} was created with this tid.`);
  if (user !== void 0 && caller.kind !== "partner" && user !== caller.id) throw notFound;
  const owner = user !== void 0 ? ownerOf({ kind: "user", id: user }) : ownerOf(caller);
  const known = await recallTid(owner, tid, retentionPolicy(env).tidRetentionMs);
  if (known) {
    if (known.kind !== kind) throw notFound;
    return known.receipt_id;
  }
  const row = await findTid(await readIndexFor(env, owner, tid), owner, tid, retentionPolicy(env).tidRetentionMs);
  if (!row || row.kind !== kind) throw notFound;
  if (row.receipt_id) {
    after(remember(env, row));
    return row.receipt_id;
  }
  if (leaseExpired(row, leaseMs(readConfig(env).upstreamTimeoutMs), clock.now())) {
    throw new ApiError(
      "receipt_not_found",
      `The create with this tid did not finish and its outcome is unknown. Retry that create with the same body: it adopts the ${noun} if the payment service made one.`
    );
  }
  throw new ApiError("tid_in_progress", "The create with this tid is still in flight.", { retry_after: 1 });
}
__name(createdBy, "createdBy");

// src/operations/operation.ts
var describe = /* @__PURE__ */ __name((description2) => description2, "describe");
var contextOf = /* @__PURE__ */ __name((c) => ({
  caller: c.var.caller,
  requestId: c.var.requestId,
  language: languageOf(c.var.language)
}), "contextOf");
function onRecord(kind, run) {
  return (c, input) => sendFromRecord(c, () => run(receiptStub(c.env, kind, input.id), input, { ...contextOf(c), record: { kind, id: input.id } }));
}
__name(onRecord, "onRecord");
var IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);
function idempotencyKeyOf(c) {
  const key = c.req.header("idempotency-key");
  if (key === void 0) return void 0;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError("invalid_request", "The request does not match the schema.", {
      details: [
        { path: "Idempotency-Key", message: "Idempotency-Key must be 1 to 255 printable ASCII characters, not starting or ending with a space" }
      ]
    });
  }
  return key;
}
__name(idempotencyKeyOf, "idempotencyKeyOf");
function keyed(kind, run) {
  return async (c, input) => {
    const key = idempotencyKeyOf(c);
    const config = readConfig(c.env);
    const request = { path: new URL(c.req.url).pathname, input };
    const idempotency = key === void 0 ? void 0 : { key, fingerprints: await Promise.all([config.tidSecret, ...config.formerTidSecrets].map((secret) => fingerprint(secret, request))) };
    return sendFromRecord(
      c,
      () => run(receiptStub(c.env, kind, input.id), input, { ...contextOf(c), record: { kind, id: input.id }, ...idempotency ? { idempotency } : {} })
    );
  };
}
__name(keyed, "keyed");
async function sendFromRecord(c, operation2) {
  let outcome;
  try {
    outcome = await operation2();
  } catch (err) {
    if (isNewerSchema(err)) throw err;
    log("error", "record_object_failed", { request_id: c.var.requestId, error: err instanceof Error ? err.message : String(err) });
    throw new ApiError(
      "upstream_error",
      "The gateway lost track of this operation midway; its outcome is being reconciled. Read the receipt (check-id) before retrying."
    );
  }
  if (outcome.log) currentLine()?.merge(outcome.log);
  if (outcome.replayed) {
    currentLine()?.set({ replayed: true });
    const { status, body, headers } = outcome.replayed;
    return c.body(body, status, { ...headers, "content-type": "application/json", "Idempotent-Replayed": "true" });
  }
  return c.body(unwrap(outcome), 200, { "content-type": "application/json" });
}
__name(sendFromRecord, "sendFromRecord");
function created(kind, toCreate = (input) => input, admit) {
  return async (c, input) => {
    idempotencyKeyOf(c);
    const after = /* @__PURE__ */ __name((work) => c.executionCtx.waitUntil(work), "after");
    const { body, replayed } = await createOnce(c.env, c.var.caller, c.var.requestId, kind, toCreate(input), after, admit && (() => admit(c, input)));
    if (replayed) c.header("Idempotent-Replayed", "true");
    currentLine()?.set({ id: kind.idOf(body), ...replayed ? { replayed: true } : {} });
    return c.json(body, 200);
  };
}
__name(created, "created");
var PAY_ERRORS = [
  "otp_required",
  "otp_expired",
  "card_declined",
  "receipt_not_found",
  "operation_in_progress",
  "receipt_cancelled",
  "receipt_already_paid",
  "receipt_expired",
  "otp_attempts_exhausted",
  "otp_invalid",
  "rate_limited"
];

// src/operations/gateway.ts
var AuditTrailResult = pipe(
  object({
    id: string(),
    kind: picklist(KIND_NAMES),
    owner: pipe(string(), description(`"partner", or the user's sub, as events show it.`)),
    entries: array(
      object({
        at: Int("Milliseconds since the epoch."),
        op: pipe(
          string(),
          description(
            "create, authorize, pay, hold-confirm, cancel, read, reconcile (the gateway's own), or restore (an operator's point-in-time restore)."
          )
        ),
        actor: pipe(string(), description("partner, user:<sub>, gateway (its own reconciliation), or operator (a restore).")),
        request_id: string(),
        outcome: pipe(string(), description("ok, or the error code answered.")),
        state: pipe(nullable(ReceiptState), description("The state of the receipt or transfer after it, as the gateway knew it."))
      })
    )
  }),
  examples([
    {
      id: EXAMPLE_RECEIPT_ID,
      kind: "receipt",
      owner: "partner",
      entries: [
        { at: 17953344e5, op: "create", actor: "partner", request_id: "3f1c2a9e-7b4d-4e8a-9c1f-2d6b8e0a5f13", outcome: "ok", state: 0 },
        { at: 179533443e4, op: "authorize", actor: "partner", request_id: "8a2d4c6e-1f3b-4a5c-8e7d-9b0f1a2c3d4e", outcome: "ok", state: 0 },
        { at: 179533446e4, op: "pay", actor: "partner", request_id: "c4e6a8b0-2d1f-4e3a-9b5c-7d8e9f0a1b2c", outcome: "ok", state: 4 }
      ]
    }
  ]),
  title("AuditTrail")
);
var PageLimit = optional(
  pipe(
    number("limit must be a number"),
    integer("limit must be an integer"),
    minValue(1, "limit must be 1 to 100"),
    maxValue(100, "limit must be 1 to 100"),
    int32()
  ),
  20
);
var ListEventsRequest = pipe(
  strictObject({
    receipt_id: optional(pipe(ReceiptId, description("Only this receipt's (or transfer's `receipt_id`) events."))),
    type: optional(EventTypeName),
    delivery: optional(DeliveryStatusName),
    after: optional(pipe(EventId, description("The last event id of the previous page: answers events older than it."))),
    limit: PageLimit
  }),
  examples([{ type: "receipt.paid", delivery: "failed", limit: 20 }]),
  title("ListEventsRequest")
);
var ListFiscalPendingRequest = pipe(
  strictObject({
    after: optional(pipe(ReceiptId, description("The last receipt id of the previous page: answers the receipts after it."))),
    limit: PageLimit
  }),
  examples([{ limit: 20 }]),
  title("ListFiscalPendingRequest")
);
var FiscalPendingReceipt = object({
  id: pipe(string(), description("The receipt's id.")),
  tid: pipe(string(), description("Its tid, as its owner chose it.")),
  amount: Int("Tiyin."),
  state: pipe(
    picklist([4, 21]),
    metadata({ type: "integer", format: "int32" }),
    description("4: paid, the sale's fiscal data is missing; 21: cancelled after it was paid, the refund's fiscal data is missing.")
  ),
  since: Int("Milliseconds: the payment (or the refund) whose fiscal data is missing, as the gateway saw it."),
  reads: pipe(
    number(),
    integer(),
    int32(),
    description(
      "The scheduled reads of the payment service done since (FISCAL_READS); once all are done it stays listed, and check-id still reads it."
    )
  )
});
var FiscalPendingPage = pipe(
  object({
    receipts: pipe(
      array(FiscalPendingReceipt),
      metadata({ maxItems: 100 }),
      description("Oldest first (by `since`, then `id`); at most `limit`.")
    ),
    has_more: pipe(boolean(), description("More receipts follow: ask again with `after` set to the last id of this page."))
  }),
  title("FiscalPendingPage")
);
var UserSub = pipe(
  string(),
  minLength(1, "user must not be empty"),
  ...MaxText(255, "user must be at most 255 characters"),
  description("The user's `sub`, as in their JWT.")
);
var SearchTime = /* @__PURE__ */ __name((what) => pipe(
  number(`${what} must be a number`),
  integer(`${what} must be an integer`),
  minValue(0, `${what} must not be negative`),
  safeInteger(),
  int64(),
  description("Milliseconds since the epoch.")
), "SearchTime");
var AuditSearchRequest = pipe(
  strictObject({
    receipt_id: optional(pipe(ReceiptId, description("A receipt's id or a transfer's `receipt_id`: its entries."))),
    user: optional(
      pipe(UserSub, description("A user's `sub`: the entries of their receipts and transfers, and of the gateway calls that named them."))
    ),
    staff: optional(
      pipe(
        string(),
        minLength(3, "staff must be an email"),
        ...MaxText(255, "staff must be at most 255 characters"),
        description("A staff member's email: their views and actions in the back office.")
      )
    ),
    from: SearchTime("from"),
    to: SearchTime("to"),
    after: optional(
      pipe(
        string(),
        minLength(1, "after must not be empty"),
        ...MaxText(400, "after must be at most 400 characters"),
        description("The `next` of the previous page.")
      )
    ),
    limit: PageLimit
  }),
  examples([{ receipt_id: EXAMPLE_RECEIPT_ID, from: 17953344e5 - 36e5, to: 17953344e5 + 864e5, limit: 20 }]),
  title("AuditSearchRequest")
);
var AuditLineSchema = object({
  id: pipe(string(), description("The entry's id: the same entry is never given twice.")),
  at: Int("Milliseconds since the epoch."),
  source: pipe(
    picklist(["record", "gateway", "staff"]),
    description("A record's trail, a call to the gateway's own operations, or the back office.")
  ),
  op: pipe(
    string(),
    description("The record's operation (as receipt/audit shows it), the gateway operation's path (`events/list`), or the staff action.")
  ),
  actor: pipe(string(), description("partner, user:<sub>, gateway, operator, unauthenticated, or staff:<email>.")),
  request_id: string(),
  outcome: pipe(string(), description("ok, or the error code answered.")),
  state: optional(pipe(nullable(ReceiptState), description("A record's state after it, as the gateway knew it."))),
  kind: optional(picklist(KIND_NAMES)),
  receipt_id: optional(string()),
  user: optional(pipe(string(), description("The user the record belongs to, or the gateway call named."))),
  staff: optional(string()),
  role: optional(string()),
  target: optional(string()),
  detail: optional(
    pipe(
      looseObject({
        tid: optional(string()),
        amount: optional(Int("Tiyin.")),
        merchant_id: optional(Int("The merchant.")),
        account: optional(array(AccountEntry)),
        erased: optional(boolean()),
        method: optional(string()),
        status: optional(Int("The HTTP status answered."))
      }),
      description("A record's create (and rebuild): what the payment was for; a gateway call: its status and the filters it was asked with.")
    )
  )
});
var AuditSearchPage = pipe(
  object({
    entries: pipe(
      array(AuditLineSchema),
      metadata({ maxItems: 100 }),
      description("Oldest first; at most `limit`.")
    ),
    has_more: pipe(
      boolean(),
      description(
        "More may follow: ask again with `after` set to `next`. A page may hold fewer than `limit` entries (each page reads a bounded slice of the trail)."
      )
    ),
    next: optional(pipe(string(), description("Where the next page starts.")))
  }),
  title("AuditSearchPage")
);
var StatementDate = pipe(
  string(),
  regex(/^\d{4}-\d{2}-\d{2}$/, "date must be a date, YYYY-MM-DD"),
  description("A day in STATEMENT_TIMEZONE, `YYYY-MM-DD`.")
);
var StatementStatusSchema = object({
  date: StatementDate,
  state: pipe(
    picklist(["building", "ready", "none"]),
    description("ready: written, the files are served; building: being written (the files served are the day's previous statement, if any).")
  ),
  generation: Int("How many times the day was written (a rebuild adds one)."),
  complete: pipe(
    boolean(),
    description("false: built before the day ended (a rebuild of today); the nightly run writes it again after midnight.")
  ),
  lines: Int("Lines so far."),
  checked: Int("Lines compared with the payment service so far."),
  mismatches: Int("Lines the payment service disagrees with (listed in the files under mismatches)."),
  generated_at: nullable(Int("Milliseconds: when it was written; null while building."))
});
var StatementSummarySchema = object({
  ...StatementStatusSchema.entries,
  totals: array(
    object({
      merchant_id: nullable(Int("The merchant; null: transfers.")),
      change: pipe(picklist(["paid", "held", "cancelled", "refunded", "expired", "closed_at_edge"]), description("What the lines changed to.")),
      count: Int("Lines."),
      amount: Int("Tiyin."),
      commission: Int("Tiyin.")
    })
  ),
  csv_bytes: Int("The CSV's size."),
  json_bytes: Int("The JSON's size.")
});
var GATEWAY = {
  tag: "Gateway",
  operations: [
    describe({
      path: "/receipt/audit",
      operationId: "auditReceipt",
      example: { summary: "Created, authorized, paid", value: AUDIT_TRAIL },
      summary: "A receipt's or transfer's audit trail (partner only)",
      description: DOCS.auditReceipt,
      request: pipe(
        strictObject({
          id: ReceiptId,
          kind: optional(picklist(KIND_NAMES, "kind must be receipt or transfer"), "receipt")
        }),
        examples([{ id: EXAMPLE_RECEIPT_ID, kind: "receipt" }]),
        title("AuditRequest")
      ),
      response: AuditTrailResult,
      errors: ["forbidden", "receipt_not_found"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { id, kind }) => {
        const trail = await receiptStub(c.env, kind, id).auditTrail();
        if (!trail) throw new ApiError("receipt_not_found", `No such ${kind}.`);
        return c.json(trail, 200);
      }, "handle")
    }),
    describe({
      path: "/audit/search",
      operationId: "searchAudit",
      example: { summary: "A receipt's entries, from the audit trail in R2", value: AUDIT_SEARCH_PAGE },
      summary: "Search the audit trail of a year (partner only)",
      description: DOCS.searchAudit,
      request: AuditSearchRequest,
      response: AuditSearchPage,
      errors: ["forbidden"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, query) => {
        const named = ["receipt_id", "user", "staff"].filter((field) => query[field] !== void 0);
        const details = [];
        if (named.length !== 1) details.push({ path: named[1] ?? "receipt_id", message: "give exactly one of receipt_id, user and staff" });
        if (query.to < query.from) details.push({ path: "to", message: "to must not be before from" });
        else if (query.to - query.from > MAX_SPAN_MS) details.push({ path: "to", message: "to must be at most 31 days after from" });
        if (query.after !== void 0 && !decodeAfter(query.after))
          details.push({ path: "after", message: "after must be the next of a page this search gave" });
        if (details.length > 0) throw new ApiError("invalid_request", "The request does not match the schema.", { details });
        return c.json(await searchAudit(c.env.AUDIT, query), 200);
      }, "handle")
    }),
    describe({
      path: "/statements/list",
      operationId: "listStatements",
      example: { summary: "Yesterday's statement", value: { statements: [], has_more: false } },
      summary: "List the daily statements written (partner only)",
      description: DOCS.listStatements,
      request: pipe(
        strictObject({
          after: optional(pipe(StatementDate, description("The last date of the previous page: answers the days before it."))),
          limit: PageLimit
        }),
        examples([{ limit: 20 }]),
        title("ListStatementsRequest")
      ),
      response: pipe(
        object({
          statements: pipe(array(StatementSummarySchema), description("Newest first; each with its totals per merchant and change.")),
          has_more: boolean()
        }),
        title("StatementPage")
      ),
      errors: ["forbidden"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { after, limit }) => c.json(await listStatements(c.env, after, limit), 200), "handle")
    }),
    describe({
      path: "/statements/rebuild",
      operationId: "rebuildStatement",
      example: {
        summary: "Today's statement so far, written at once",
        value: {
          date: "2026-11-28",
          state: "ready",
          generation: 1,
          complete: false,
          lines: 3,
          checked: 3,
          mismatches: 0,
          generated_at: 179533446e4
        }
      },
      summary: "Write a day's statement again (partner only)",
      description: DOCS.rebuildStatement,
      request: pipe(strictObject({ date: StatementDate }), examples([{ date: "2026-11-28" }]), title("RebuildStatementRequest")),
      response: pipe(StatementStatusSchema, title("StatementStatus")),
      status: 202,
      errors: ["forbidden"],
      // The build that follows (the object's alarms, not this request) compares lines with check-id and a2c/get-by-id.
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { date }) => c.json(await rebuildStatement(c.env, date), 202), "handle")
    }),
    describe({
      path: "/events/list",
      operationId: "listEvents",
      example: { summary: "A receipt.paid event whose delivery failed", value: EVENT_PAGE },
      summary: "List events with their delivery status (partner only)",
      description: DOCS.listEvents,
      request: ListEventsRequest,
      response: ListEventsResult,
      errors: ["forbidden"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { receipt_id, type, delivery, after, limit }) => c.json(await listEventPage(c.env, { receiptId: receipt_id, type, delivery, after, limit }), 200), "handle")
    }),
    describe({
      path: "/events/resend",
      operationId: "resendEvent",
      example: { summary: "The event, queued again", value: EVENT_RESENT },
      summary: "Queue an event for delivery again (partner only)",
      description: DOCS.resendEvent,
      request: pipe(strictObject({ id: EventId }), examples([{ id: EXAMPLE_EVENT_ID }]), title("ResendEventRequest")),
      response: Event,
      errors: ["forbidden", "not_found"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { id }) => c.json(await resendEvent(c.env, id), 200), "handle")
    }),
    describe({
      path: "/users/erase",
      operationId: "eraseUser",
      example: { summary: "Accepted: done within 24 hours", value: { user: "user-123", accepted_at: 1795536e6 } },
      summary: "Erase a user's personal data (partner only)",
      description: DOCS.eraseUser,
      request: pipe(strictObject({ user: UserSub }), examples([{ user: "user-123" }]), title("EraseUserRequest")),
      response: pipe(
        object({
          user: UserSub,
          accepted_at: Int("Milliseconds since the epoch: the erasure is done within 24 hours of it.")
        }),
        title("ErasureAccepted")
      ),
      status: 202,
      errors: ["forbidden"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { user }) => c.json(await requestErasure(c.env, user, clock.now()), 202), "handle")
    }),
    describe({
      path: "/fiscal/pending",
      operationId: "listFiscalPending",
      example: { summary: "A receipt paid an hour ago whose fiscal data is still missing", value: FISCAL_PENDING_PAGE },
      summary: "List the receipts whose fiscal receipt is still missing (partner only)",
      description: DOCS.listFiscalPending,
      request: ListFiscalPendingRequest,
      response: FiscalPendingPage,
      errors: ["forbidden"],
      upstream: [],
      handle: /* @__PURE__ */ __name(async (c, { after, limit }) => {
        const page2 = await fiscalPendingPage(c.env, { after, limit });
        if (!page2) {
          throw new ApiError("invalid_request", "The request does not match the schema.", {
            details: [{ path: "after", message: "after must be the id of a receipt the list showed" }]
          });
        }
        return c.json(page2, 200);
      }, "handle")
    })
  ]
};

// src/operations/receipts.ts
var AUTHORIZE_ERRORS = [
  "receipt_not_found",
  "receipt_cancelled",
  "receipt_already_paid",
  "receipt_expired",
  "operation_in_progress",
  "otp_attempts_exhausted",
  "otp_resend_too_soon",
  "rate_limited",
  "risk_limited",
  "card_declined"
];
var CheckTidRequest = pipe(
  strictObject({
    tid: Tid,
    user: optional(
      pipe(
        string(),
        minLength(1, "user must not be empty"),
        ...MaxText(255, "user must be at most 255 characters"),
        description("Partner only: the user (JWT `sub`) whose tid this is. Users' tids live in their own space (rule 9).")
      )
    )
  }),
  examples([{ tid: "order-2026-0001" }]),
  title("CheckTidRequest")
);
var checkReceipt = onRecord("receipt", (record, _input, op) => record.check(op));
var RECEIPTS = {
  tag: "Receipts",
  operations: [
    describe({
      path: "/receipt/create",
      operationId: "createReceipt",
      example: { summary: "A receipt, created (state 0)", value: RECEIPT_CREATED },
      summary: "Create a payment receipt",
      description: DOCS.createReceipt,
      request: CreateReceiptRequest,
      response: Receipt,
      errors: ["tid_conflict", "tid_in_progress", "hold_not_enabled", "amount_out_of_range"],
      headers: ["Idempotent-Replayed"],
      links: {
        authorize: { operationId: "authorizeReceipt", description: "Send the OTP for this receipt.", field: "id" },
        pay: { operationId: "payReceipt", description: "Pay this receipt.", field: "id" },
        checkById: { operationId: "checkReceiptById", description: "Read this receipt.", field: "id" }
      },
      upstream: ["receipt/create"],
      handle: created(RECEIPT)
    }),
    describe({
      path: "/receipt/authorize",
      operationId: "authorizeReceipt",
      example: { summary: "The OTP was sent", value: AUTHORIZED },
      summary: "Send the OTP for a card-token payment",
      description: DOCS.authorizeReceipt,
      request: pipe(
        strictObject({ id: ReceiptId, card: TokenCard }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: { token: "tok_sandbox_ok" } }]),
        title("AuthorizeRequest")
      ),
      response: AuthorizeResult,
      errors: [...AUTHORIZE_ERRORS],
      limit: "authorize",
      lifecycle: "authorize",
      upstream: ["receipt/authorize"],
      handle: keyed("receipt", (record, { card }, op) => record.authorize({ ...op, card }))
    }),
    describe({
      path: "/receipt/anonymous/authorize",
      operationId: "authorizeReceiptAnonymous",
      example: { summary: "The OTP was sent", value: AUTHORIZED_ANONYMOUS },
      summary: "Send the OTP for a card-number payment",
      description: DOCS.authorizeReceiptAnonymous,
      request: pipe(
        strictObject({ id: ReceiptId, card: NumberCard }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: EXAMPLE_CARD }]),
        title("AnonymousAuthorizeRequest")
      ),
      response: AuthorizeResult,
      errors: [...AUTHORIZE_ERRORS],
      limit: "authorize",
      lifecycle: "authorize",
      upstream: ["receipt/anonymous/authorize"],
      handle: keyed("receipt", (record, { card }, op) => record.authorize({ ...op, card }))
    }),
    describe({
      path: "/receipt/pay",
      operationId: "payReceipt",
      example: { summary: "Paid (state 4), fiscalized", value: RECEIPT_PAID },
      summary: "Pay a receipt with a card token",
      description: DOCS.payReceipt,
      request: pipe(
        strictObject({ id: ReceiptId, card: TokenCard, otp: optional(Otp) }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: { token: "tok_sandbox_ok" }, otp: "111111" }]),
        title("PayRequest")
      ),
      response: Receipt,
      errors: [...PAY_ERRORS],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["receipt/pay"],
      handle: keyed("receipt", (record, { card, otp }, op) => record.pay({ ...op, card, otp }))
    }),
    describe({
      path: "/receipt/anonymous/pay",
      operationId: "payReceiptAnonymous",
      example: { summary: "Paid (state 4): the reduced receipt", value: REDUCED_RECEIPT_PAID },
      summary: "Pay a receipt with a card number",
      description: DOCS.payReceiptAnonymous,
      request: pipe(
        strictObject({ id: ReceiptId, card: NumberCard, otp: Otp }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: EXAMPLE_CARD, otp: "111111" }]),
        title("AnonymousPayRequest")
      ),
      response: ReducedReceipt,
      errors: [...PAY_ERRORS, "risk_limited"],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["receipt/anonymous/pay"],
      handle: keyed("receipt", (record, { card, otp }, op) => record.pay({ ...op, card, otp }))
    }),
    describe({
      path: "/receipt/hold-confirm",
      operationId: "confirmHold",
      example: { summary: "The held amount debited (state 4), fiscalized", value: RECEIPT_PAID },
      summary: "Confirm a held payment (partner only)",
      description: DOCS.confirmHold,
      request: ReceiptIdRequest,
      response: Receipt,
      errors: [
        "forbidden",
        "hold_not_enabled",
        "receipt_not_found",
        "operation_in_progress",
        "receipt_not_held",
        "receipt_cancelled",
        "receipt_already_paid",
        "receipt_expired",
        "otp_attempts_exhausted"
      ],
      callers: "partner",
      lifecycle: "hold-confirm",
      upstream: ["receipt/hold-confirm"],
      handle: keyed("receipt", (record, _input, op) => record.holdConfirm(op))
    }),
    describe({
      path: "/receipt/cancel",
      operationId: "cancelReceipt",
      example: { summary: "The paid receipt cancelled (state 21), the refund fiscalized", value: RECEIPT_CANCELLED },
      summary: "Cancel a receipt",
      description: DOCS.cancelReceipt,
      request: pipe(
        strictObject({
          id: ReceiptId,
          reason: optional(pipe(Text2(256), description("Why, as the payment service records it."))),
          cancelledBy: optional(
            pipe(
              Text2(128),
              description(
                "Who cancelled, as the payment service records it: sent as given for the partner backend. A user cannot speak for someone else upstream: a user's cancel sends the deployment's own name (GATEWAY_CANCELLED_BY) instead, and the audit trail names the user."
              )
            )
          )
        }),
        examples([{ id: EXAMPLE_RECEIPT_ID, reason: "Customer changed their mind" }]),
        title("CancelRequest")
      ),
      response: Receipt,
      errors: ["forbidden", "receipt_not_found", "operation_in_progress", "cancel_not_allowed", "receipt_expired"],
      lifecycle: "cancel",
      upstream: ["receipt/cancel"],
      handle: keyed("receipt", (record, { reason, cancelledBy }, op) => record.cancel({ ...op, reason, cancelledBy }))
    }),
    describe({
      path: "/receipt/check-id",
      operationId: "checkReceiptById",
      example: { summary: "A paid receipt", value: RECEIPT_PAID },
      summary: "Read a receipt as it stands now",
      description: DOCS.checkReceiptById,
      request: ReceiptIdRequest,
      response: Receipt,
      errors: ["receipt_not_found"],
      upstream: ["receipt/check-id"],
      handle: checkReceipt
    }),
    describe({
      path: "/receipt/check-tid",
      operationId: "checkReceiptByTid",
      example: { summary: "A paid receipt", value: RECEIPT_PAID },
      summary: "Read the receipt created with a tid",
      description: DOCS.checkReceiptByTid,
      request: CheckTidRequest,
      response: Receipt,
      errors: ["receipt_not_found", "tid_in_progress"],
      upstream: ["receipt/check-id"],
      handle: /* @__PURE__ */ __name(async (c, { tid, user }) => {
        const id = await createdBy(c.env, c.var.caller, "receipt", tid, user, (work) => c.executionCtx.waitUntil(work));
        return checkReceipt(c, { id });
      }, "handle")
    })
  ]
};

// src/risk/fingerprint.ts
var canonicalNumber = /* @__PURE__ */ __name((number2) => number2.replace(/\D/g, "").replace(/^0+(?=\d)/, ""), "canonicalNumber");
async function cardFingerprint(secret, card) {
  const message2 = "number" in card ? `number\0${canonicalNumber(card.number)}` : `token\0${card.token}`;
  return hex(await hmac(secret, message2));
}
__name(cardFingerprint, "cardFingerprint");
async function userKey(secret, sub) {
  return hex(await hmac(secret, `user\0${sub}`)).slice(0, 32);
}
__name(userKey, "userKey");
var fingerprintPrefix = /* @__PURE__ */ __name((fingerprint2) => fingerprint2.slice(0, 12), "fingerprintPrefix");

// src/risk/judge.ts
var MAX_ENTRIES = 256;
var PREVIOUS_KEYS = {
  user_payer_cards_per_day: "user_cards_per_day",
  user_otp_sends_per_day: "user_otp_sends_per_day"
};
var isEnd = /* @__PURE__ */ __name((value, now) => typeof value === "number" && value > now, "isEnd");
function prune(log2, now) {
  const kept = {};
  if (log2 === null || typeof log2 !== "object") return kept;
  for (const [key, uses] of Object.entries(log2)) {
    if (Array.isArray(uses)) {
      const left = uses.filter((until) => isEnd(until, now));
      if (left.length > 0) kept[key] = left;
    } else if (uses !== null && typeof uses === "object") {
      const left = Object.fromEntries(Object.entries(uses).filter((use) => isEnd(use[1], now)));
      if (Object.keys(left).length > 0) kept[key] = left;
    }
  }
  return kept;
}
__name(prune, "prune");
var endsIn = /* @__PURE__ */ __name((log2) => Object.values(log2).flatMap((uses) => Array.isArray(uses) ? uses : Object.values(uses)), "endsIn");
var refOf = /* @__PURE__ */ __name((entry) => {
  const colon = entry.indexOf(":");
  return colon < 0 ? entry : entry.slice(0, colon);
}, "refOf");
function inWindow(log2, counter, now) {
  const { key } = RISK_RULES[counter.rule];
  const uses = log2[key];
  const own = uses === void 0 || Array.isArray(uses) ? [] : Object.entries(uses).map(([entry, end]) => [refOf(entry), end - counter.keepMs + counter.windowMs]);
  const previousKey = PREVIOUS_KEYS[counter.rule];
  const previous2 = previousKey === void 0 ? void 0 : log2[previousKey];
  const earlier = previous2 === void 0 ? [] : Array.isArray(previous2) ? previous2.map((end) => ["", end]) : Object.entries(previous2);
  return [...own, ...earlier].filter(([, leaves]) => leaves > now);
}
__name(inWindow, "inWindow");
function refusalBy(log2, counter, now) {
  const rule = RISK_RULES[counter.rule];
  const entries = inWindow(log2, counter, now);
  let ends;
  if (rule.counts === "ref") ends = entries.filter(([ref]) => ref === counter.ref).map(([, leaves]) => leaves);
  else if (rule.counts === "all") ends = entries.map(([, leaves]) => leaves);
  else {
    const present = /* @__PURE__ */ new Map();
    for (const [ref, leaves] of entries) present.set(ref, Math.max(present.get(ref) ?? 0, leaves));
    if (present.has(counter.ref)) return null;
    ends = [...present.values()];
  }
  if (ends.length < counter.limit) return null;
  if (rule.others) return counter.windowMs;
  ends.sort((a, b) => a - b);
  return Math.max(0, ends[ends.length - counter.limit] - now);
}
__name(refusalBy, "refusalBy");
function judge(stored, counters, nonce, now) {
  const log2 = prune(stored, now);
  let refusal2 = null;
  for (const counter of counters) {
    const wait = refusalBy(log2, counter, now);
    if (wait !== null && (refusal2 === null || wait > refusal2.retryAfterMs)) refusal2 = { rule: counter.rule, retryAfterMs: wait };
  }
  if (refusal2) return { verdict: { ok: false, ...refusal2 }, log: null };
  if (counters.length === 0) return { verdict: { ok: true, taken: [] }, log: null };
  const taken = [];
  const counted = /* @__PURE__ */ new Set();
  for (const counter of counters) {
    const { key } = RISK_RULES[counter.rule];
    if (counted.has(`${key}\0${counter.ref}`)) continue;
    counted.add(`${key}\0${counter.ref}`);
    const before = log2[key];
    const uses = before === void 0 || Array.isArray(before) ? {} : { ...before };
    const until = now + counter.keepMs;
    if (RISK_KEYS[key].entries === "call") {
      const entry = `${counter.ref}:${nonce}`;
      uses[entry] = until;
      taken.push({ key, entry });
    } else {
      uses[counter.ref] = Math.max(uses[counter.ref] ?? 0, until);
    }
    log2[key] = capped(uses);
  }
  return { verdict: { ok: true, taken }, log: log2 };
}
__name(judge, "judge");
var cappedLog = /* @__PURE__ */ __name((log2) => Object.fromEntries(Object.entries(log2).map(([key, uses]) => [key, Array.isArray(uses) ? uses : capped(uses)])), "cappedLog");
function capped(uses) {
  const entries = Object.entries(uses);
  if (entries.length <= MAX_ENTRIES) return uses;
  return Object.fromEntries(entries.sort(([, a], [, b]) => b - a).slice(0, MAX_ENTRIES));
}
__name(capped, "capped");
function takeBack(stored, taken, now) {
  const log2 = prune(stored, now);
  let changed = false;
  for (const { key, entry } of taken) {
    const uses = log2[key];
    if (uses === void 0 || Array.isArray(uses) || !Object.hasOwn(uses, entry)) continue;
    const { [entry]: _gone, ...left } = uses;
    if (Object.keys(left).length > 0) log2[key] = left;
    else delete log2[key];
    changed = true;
  }
  return changed ? log2 : null;
}
__name(takeBack, "takeBack");

// src/risk/risk-object.ts
import { DurableObject } from "cloudflare:workers";
var RISK_LOG = "log";
var RISK_SHARDS = 256;
var RISK_CHUNKS = 512;
var CHUNK = "c:";
var DAY_MS3 = 864e5;
var shardOf = /* @__PURE__ */ __name((subject) => `shard:${fnv1a(subject) % RISK_SHARDS}`, "shardOf");
var chunkOf = /* @__PURE__ */ __name((subject) => `${CHUNK}${Math.floor(fnv1a(subject) / RISK_SHARDS) % RISK_CHUNKS}:`, "chunkOf");
var SWEEP_GAP_MS = 36e5;
function union2(a, b) {
  const out = { ...a };
  for (const [key, uses] of Object.entries(b)) {
    const mine = out[key];
    if (mine === void 0) out[key] = uses;
    else if (Array.isArray(mine) || Array.isArray(uses))
      out[key] = (Array.isArray(mine) ? mine : []).length >= (Array.isArray(uses) ? uses : []).length ? mine : uses;
    else {
      const merged = { ...mine };
      for (const [entry, end] of Object.entries(uses)) merged[entry] = Math.max(merged[entry] ?? 0, end);
      out[key] = merged;
    }
  }
  return out;
}
__name(union2, "union");
function unheld(log2, held) {
  const out = {};
  for (const [key, uses] of Object.entries(log2)) {
    const there = held[key];
    if (Array.isArray(uses)) {
      if (!Array.isArray(there) || there.length < uses.length) out[key] = uses;
      continue;
    }
    const fresh = Object.entries(uses).filter(([entry, end]) => there === void 0 || Array.isArray(there) || there[entry] !== end);
    if (fresh.length > 0) out[key] = Object.fromEntries(fresh);
  }
  return out;
}
__name(unheld, "unheld");
function latestEnd(chunk) {
  let latest = 0;
  for (const part of Object.values(chunk)) {
    for (const uses of Object.values(part ?? {})) {
      for (const end of Array.isArray(uses) ? uses : Object.values(uses ?? {})) if (typeof end === "number" && end > latest) latest = end;
    }
  }
  return latest;
}
__name(latestEnd, "latestEnd");
var RiskObject = class extends DurableObject {
  static {
    __name(this, "RiskObject");
  }
  /** The least time between two sweeps (the bench's shortened day shortens it too): a field, not a method, so no wrapper of the object's calls takes it for one. */
  sweepGapMs = SWEEP_GAP_MS;
  /** The length of a chunk's day (the bench's shortened day shortens it too): a field, as sweepGapMs. */
  dayMs = DAY_MS3;
  /** Every chunk `subject` may have a part in, each day's: its key and value. */
  #chunks(subject) {
    return [...this.ctx.storage.kv.list({ prefix: chunkOf(subject) })];
  }
  /** A subject's log in this shard, the union of its parts (each key at most MAX_ENTRIES, as one stored log keeps), or undefined when it has none. */
  #readSubject(subject, chunks) {
    let log2;
    for (const [, chunk] of chunks) if (Object.hasOwn(chunk, subject)) log2 = union2(log2 ?? {}, chunk[subject]);
    return log2 === void 0 ? void 0 : cappedLog(log2);
  }
  /**
   * Writes a subject's log once, into today's chunk: what of it no other
   * day's part holds as it is. One row written (or the chunk deleted when
   * nothing is left in it).
   */
  #writeSubject(subject, log2, chunks, now) {
    const today = `${chunkOf(subject)}${Math.floor(now / this.dayMs)}`;
    let held = {};
    for (const [key, chunk] of chunks) if (key !== today && Object.hasOwn(chunk, subject)) held = union2(held, chunk[subject]);
    const stored = chunks.find(([key]) => key === today);
    this.#putPart(today, stored?.[1] ?? {}, subject, unheld(log2, held), stored !== void 0);
  }
  /** Puts `part` as the subject's in `chunk` (stored at `key` if `stored`): one row written, the chunk deleted when nothing is left. */
  #putPart(key, chunk, subject, part, stored) {
    if (endsIn(part).length === 0) delete chunk[subject];
    else chunk[subject] = part;
    if (Object.keys(chunk).length > 0) this.ctx.storage.kv.put(key, chunk);
    else if (stored) this.ctx.storage.kv.delete(key);
  }
  /**
   * Checks a call against every counter it names and, only if none refuses,
   * counts it in each (src/risk/judge.ts): all or nothing, so a refused call
   * counts nothing. The subject's log is written once if the call counted
   * anything. `nonce` names the call's own entries, which `takeBack` removes.
   */
  async count(subject, counters, nonce) {
    const chunks = this.#chunks(subject);
    const now = clock.now();
    const { verdict, log: log2 } = judge(prune(this.#readSubject(subject, chunks), now), counters, nonce, now);
    if (log2 === null) return verdict;
    this.#writeSubject(subject, log2, chunks, now);
    const keepMs = Math.max(...counters.map((c) => c.keepMs));
    await this.#armAlarm(now + keepMs + this.sweepGapMs);
    return verdict;
  }
  /**
   * Takes back what `count` counted for a call another subject refused: its
   * own entries only, in the day's chunk that holds them (the day before,
   * when the call was counted before midnight); one write, none if none is
   * left.
   */
  async takeBack(subject, taken) {
    const now = clock.now();
    for (const [key, chunk] of this.#chunks(subject)) {
      if (!Object.hasOwn(chunk, subject)) continue;
      const part = takeBack(chunk[subject], taken, now);
      if (part !== null) this.#putPart(key, chunk, subject, part, true);
    }
  }
  /**
   * A shard: every chunk whose uses have all ended is deleted (rule 10),
   * and the alarm comes back for the next one to end, at least
   * sweepGapMs later. An object whose RISK_LOG holds something (a
   * subject's own object of the release before 030096c, or a shard with
   * 030096c's guard) deletes itself once that and every chunk have ended.
   */
  async alarm() {
    const now = clock.now();
    let next = Infinity;
    for (const [key, chunk] of this.ctx.storage.kv.list({ prefix: CHUNK })) {
      const latest = latestEnd(chunk);
      if (latest <= now) this.ctx.storage.kv.delete(key);
      else next = Math.min(next, latest);
    }
    const own = this.ctx.storage.kv.get(RISK_LOG);
    if (own !== void 0) {
      const ends = endsIn(prune(own, now));
      if (ends.length === 0 && next === Infinity) {
        await this.ctx.storage.deleteAll();
        return;
      }
      if (ends.length > 0) next = Math.min(next, Math.max(...ends));
    }
    if (next !== Infinity) await this.#armAlarm(Math.max(next, now + this.sweepGapMs));
  }
  /**
   * One alarm at a time, moved on by alarm() itself: a count writes no alarm
   * when one is pending. Asked of the storage every time (the runtime keeps
   * it in memory: no row read), not remembered by the incarnation, which a
   * storage restored or deleted under it would leave believing in an alarm
   * that is gone, and its chunks would never end.
   */
  async #armAlarm(at) {
    if (await this.ctx.storage.getAlarm() === null) await this.ctx.storage.setAlarm(at);
  }
};

// src/risk/check.ts
var REFUSALS = {
  user_card_uses_per_hour: "This user used this card number too many times in the last hour",
  user_card_uses_per_day: "This user used this card number too many times today",
  card_users_per_day: "This card number was used by too many users today",
  user_payer_cards_per_day: "This user has paid with too many different card numbers today",
  user_receiver_cards_per_day: "This user has sent transfers to too many different card numbers today",
  user_otp_sends_per_day: "Too many OTPs were sent for this user today",
  user_card_otp_sends_per_day: "Too many OTPs were sent for this user to this card today"
};
var riskStub = /* @__PURE__ */ __name((env, subject) => env.RISK.get(env.RISK.idFromName(shardOf(subject))), "riskStub");
async function admitRisk(env, caller, uses, requestId2) {
  if (caller.kind === "partner") return null;
  const limits = riskLimits(env);
  const secret = env.CARD_FINGERPRINT_SECRET ?? "";
  const fingerprint2 = await cardFingerprint(secret, uses.card);
  const payer = "number" in uses.card && !uses.receiver;
  const counter = /* @__PURE__ */ __name((rule, ref) => {
    const limit = limits[rule];
    const { key, windowMs: windowMs2 } = RISK_RULES[rule];
    return limit === null ? [] : [{ rule, limit, windowMs: windowMs2, keepMs: KEEP_MS[key], ref }];
  }, "counter");
  const subjects = [
    {
      kind: "user",
      name: `user:${caller.id}`,
      counters: [
        ...payer ? [
          ...counter("user_card_uses_per_hour", fingerprint2),
          ...counter("user_card_uses_per_day", fingerprint2),
          ...counter("user_payer_cards_per_day", fingerprint2)
        ] : [],
        ...uses.receiver ? counter("user_receiver_cards_per_day", fingerprint2) : [],
        ...uses.otpSend ? [...counter("user_otp_sends_per_day", fingerprint2), ...counter("user_card_otp_sends_per_day", fingerprint2)] : []
      ]
    },
    {
      kind: "card",
      name: `card:${fingerprint2}`,
      counters: payer && limits.card_users_per_day !== null ? counter("card_users_per_day", await userKey(secret, caller.id)) : []
    }
  ].filter((subject) => subject.counters.length > 0);
  if (subjects.length === 0) return null;
  const nonce = crypto.randomUUID().slice(0, 8);
  const judged = await Promise.all(subjects.map((subject) => countIn(env, subject, nonce, requestId2)));
  let refused = null;
  judged.forEach(({ verdict }, i) => {
    if (!verdict.ok && (!refused || verdict.retryAfterMs > refused.retryAfterMs)) refused = { ...verdict, subject: subjects[i].kind };
  });
  if (!refused) return null;
  const refusal2 = refused;
  await Promise.all(
    judged.map(({ verdict, fallback }, i) => verdict.ok ? takeBackIn(env, subjects[i], verdict.taken, fallback, requestId2) : void 0)
  );
  const retryAfter = Math.max(1, Math.ceil(refusal2.retryAfterMs / 1e3));
  metric(env, "risk_refused", { operation: refusal2.rule, outcome: refusal2.subject });
  note("warn", "risk_limited", {
    request_id: requestId2,
    rule: refusal2.rule,
    subject: refusal2.subject,
    fingerprint: fingerprintPrefix(fingerprint2),
    ...refusal2.subject === "user" ? { user: caller.id } : {},
    retry_after: retryAfter
  });
  return {
    code: "risk_limited",
    message: `${REFUSALS[refusal2.rule]} (rule 13, ${refusal2.rule}); retry after Retry-After seconds.`,
    rule: refusal2.rule,
    retry_after: retryAfter
  };
}
__name(admitRisk, "admitRisk");
async function countIn(env, subject, nonce, requestId2) {
  try {
    return { verdict: await riskStub(env, subject.name).count(subject.name, subject.counters, nonce), fallback: false };
  } catch (err) {
    log("error", "risk_unavailable", { request_id: requestId2, subject: subject.kind, fallback: "isolate", error: String(err) });
    return { verdict: isolate.count(subject.name, subject.counters, nonce), fallback: true };
  }
}
__name(countIn, "countIn");
async function takeBackIn(env, subject, taken, fallback, requestId2) {
  if (taken.length === 0) return;
  if (fallback) return isolate.takeBack(subject.name, taken);
  try {
    await riskStub(env, subject.name).takeBack(subject.name, taken);
  } catch (err) {
    log("error", "risk_unavailable", { request_id: requestId2, subject: subject.kind, step: "take_back", error: String(err) });
  }
}
__name(takeBackIn, "takeBackIn");
var FALLBACK_SUBJECTS = 1e4;
var isolate = {
  logs: /* @__PURE__ */ new Map(),
  count(name, counters, nonce) {
    const { verdict, log: counted } = judge(this.logs.get(name), counters, nonce, clock.now());
    if (counted !== null) this.keep(name, counted);
    return verdict;
  },
  takeBack(name, taken) {
    const left = takeBack(this.logs.get(name), taken, clock.now());
    if (left !== null) this.keep(name, left);
  },
  keep(name, counted) {
    this.logs.delete(name);
    this.logs.set(name, counted);
    if (this.logs.size > FALLBACK_SUBJECTS) this.logs.delete(this.logs.keys().next().value);
  }
};

// src/operations/transfers.ts
var CreateTransferRequest = pipe(
  strictObject({
    tid: Tid,
    amount: Amount,
    rate_id: pipe(PositiveId("rate_id"), description("Tariff id at the payment service.")),
    receiver_card: CardNumber,
    token: pipe(CardToken, description("Sender's card token."))
  }),
  examples([{ tid: "transfer-2026-0001", amount: 15e5, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" }]),
  title("CreateTransferRequest")
);
var createTransfer = created(
  TRANSFER,
  void 0,
  (c, input) => admitRisk(c.env, c.var.caller, { card: { number: input.receiver_card }, receiver: true }, c.var.requestId)
);
var TRANSFERS = {
  tag: "Transfers (a2c)",
  operations: [
    describe({
      path: "/a2c/create",
      operationId: "createTransfer",
      example: { summary: "A transfer, created (state 0)", value: TRANSFER_CREATED },
      summary: "Create a card-to-card transfer",
      description: DOCS.createTransfer,
      request: CreateTransferRequest,
      response: TransferReceipt,
      errors: ["tid_conflict", "tid_in_progress", "card_declined", "risk_limited"],
      headers: ["Idempotent-Replayed"],
      links: {
        pay: { operationId: "payTransfer", description: "Confirm this transfer.", field: "receipt_id" },
        getById: { operationId: "getTransfer", description: "Read this transfer.", field: "receipt_id" }
      },
      // The upstream's field table spells it `tId`: accepted for `tid`, and not in the document.
      aliases: { tId: "tid" },
      upstream: ["a2c/create"],
      handle: createTransfer
    }),
    describe({
      path: "/a2c/pay",
      operationId: "payTransfer",
      example: { summary: "Paid (state 4)", value: TRANSFER_PAID },
      summary: "Confirm a transfer",
      description: DOCS.payTransfer,
      request: pipe(
        strictObject({ id: ReceiptId, otp: optional(Otp) }),
        examples([{ id: EXAMPLE_TRANSFER_ID, otp: "111111" }]),
        title("PayTransferRequest")
      ),
      response: TransferReceipt,
      errors: [...PAY_ERRORS],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["a2c/pay"],
      handle: keyed("transfer", (record, { otp }, op) => record.payTransfer({ ...op, otp }))
    }),
    describe({
      path: "/a2c/get-by-id",
      operationId: "getTransfer",
      example: { summary: "A paid transfer", value: TRANSFER_PAID },
      summary: "Read a transfer as it stands now",
      description: DOCS.getTransfer,
      request: ReceiptIdRequest,
      response: TransferReceipt,
      errors: ["receipt_not_found"],
      upstream: ["a2c/get-by-id"],
      handle: onRecord("transfer", (record, _input, op) => record.check(op))
    })
  ]
};

// src/events/openapi.ts
var EVENT_SCHEMAS = { receipt: "ReceiptEvent", transfer: "TransferEvent" };
var DELIVERY = [
  "POSTed as JSON to the partner's WEBHOOK_URL through a queue, at least once, in no guaranteed order (`sequence` orders one receipt's events).",
  "Headers as Standard Webhooks sign them: `webhook-id` (the event id: the same on every retry, so duplicates can be dropped), `webhook-timestamp` (seconds),",
  '`webhook-signature`: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the bytes of the `whsec_` secret;',
  "during a secret rotation one signature per secret, space-separated. Verify with any Standard Webhooks library.",
  "Answer 2xx within 10 s; anything else is retried with exponential backoff for more than 24 hours, then the event shows `failed` in events/list",
  "and can be sent again with events/resend."
].join(" ");
var header = /* @__PURE__ */ __name((name, description2, maxLength2, pattern) => ({
  name,
  in: "header",
  required: true,
  description: description2,
  schema: { type: "string", maxLength: maxLength2, pattern }
}), "header");
var HEADERS = [
  header("webhook-id", "The event id (`evt_<ULID>`); the same on every delivery of this event.", 30, "^evt_[0-9A-HJKMNP-TV-Z]{26}$"),
  header("webhook-timestamp", "Seconds since the epoch when this delivery was signed; refuse one far from your clock.", 12, "^\\d{1,12}$"),
  header(
    "webhook-signature",
    "`v1,<base64 signature>`, one per configured secret, space-separated.",
    1024,
    "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"
  )
];
async function eventWebhooks() {
  const { schema } = await resolver(Event).toOpenAPISchema();
  const webhooks = Object.fromEntries(
    Object.entries(EVENT_TYPES).map(([type, when]) => [
      type,
      {
        post: {
          operationId: `event_${type.replace(/\W/g, "_")}`,
          summary: type,
          description: `${when}

${DELIVERY}`,
          tags: ["Events (webhooks)"],
          // The gateway calls the partner: no caller credential, the body is signed instead (webhook-signature).
          security: [],
          parameters: HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  allOf: [
                    { $ref: `#/components/schemas/${EVENT_SCHEMAS[kindOfEvent(type)]}` },
                    { type: "object", properties: { type: { type: "string", const: type } } }
                  ]
                },
                examples: { [type]: { summary: type, value: eventExample(type) } }
              }
            }
          },
          responses: {
            "2XX": { description: "Received. Any 2xx ends this event's delivery." },
            default: { description: "Anything else, or no answer within 10 s: delivered again later, with the same webhook-id." }
          }
        }
      }
    ])
  );
  return { webhooks, event: schema };
}
__name(eventWebhooks, "eventWebhooks");

// src/operations/openapi.ts
var IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Makes the request safe to repeat (rule 11): a repeat by the same caller of this operation on this record with the same key and body gets the first answer again (with `Idempotent-Replayed: true`) and reaches nothing upstream; another body is 409 `idempotency_key_reused`; while the first is in flight, 409 `operation_in_progress`. Use one key per logical operation (a UUID) and the same key on every retry. 1 to 255 printable ASCII characters, neither the first nor the last a space (HTTP trims those: a key of spaces only arrives empty); anything else is 400 `invalid_request`. On a create it is accepted, and the tid decides (rule 1).",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN }
};
var COMMON = [
  "invalid_json",
  "invalid_request",
  "unauthorized",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error",
  "upstream_error",
  "upstream_refused",
  "upstream_unavailable",
  "service_misconfigured",
  // A record a newer release stored, met after a rollback (src/errors/errors.ts).
  "not_ready",
  "upstream_timeout"
];
var RETRY_CODES = /* @__PURE__ */ new Set([
  "tid_in_progress",
  "operation_in_progress",
  "rate_limited",
  "otp_resend_too_soon",
  "risk_limited",
  "upstream_unavailable",
  "not_ready"
]);
var HEADERS2 = {
  "X-Request-Id": {
    description: "The request's id, on every response; quote it when reporting a problem. Also in every error body as `request_id`.",
    required: true,
    schema: { type: "string", maxLength: 255, pattern: "^[\\w\\-=]{1,255}$" }
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    required: true,
    schema: { type: "integer", format: "int32", minimum: 1, maximum: 86400 }
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the answer kept for an earlier request: an identical create (rule 1), or a repeat of an Idempotency-Key (rule 11); absent otherwise.",
    schema: { type: "string", enum: ["true"] }
  },
  "WWW-Authenticate": {
    description: "The Bearer challenge (RFC 6750).",
    required: true,
    schema: { type: "string", maxLength: 1024, pattern: "^Bearer" }
  },
  Allow: {
    description: "The methods the path answers: `POST`.",
    required: true,
    schema: { type: "string", enum: ["POST"] }
  },
  "Content-Language": {
    description: "The language of the error's `user_message`: the one Accept-Language prefers among `uz` (Uzbek, Latin script; `uz-Latn` and `uz-UZ` ask for it too), `uz-Cyrl`, `ru` and `en`; `en` when none is acceptable or the header is absent.",
    required: true,
    schema: { type: "string", enum: [...LANGUAGES] }
  }
};
var headerRef = /* @__PURE__ */ __name((name) => ({ $ref: `#/components/headers/${name}` }), "headerRef");
function errorCodesByStatus(errors) {
  const byStatus = /* @__PURE__ */ new Map();
  for (const code of [...COMMON, ...errors]) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [.../* @__PURE__ */ new Set([...byStatus.get(status) ?? [], code])]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}
__name(errorCodesByStatus, "errorCodesByStatus");
var errorSchema = /* @__PURE__ */ __name((codes) => ({
  allOf: [
    { $ref: "#/components/schemas/Error" },
    {
      type: "object",
      properties: { error: { type: "object", properties: { code: { type: "string", enum: codes } } } }
    }
  ]
}), "errorSchema");
var OPEN_CODES = "The list grows: a client must expect a code it does not know, and handle it by its HTTP status (the typed client answers it as `unknown_error`, with the code in `gatewayCode`).";
var ERROR_CODE_SCHEMA = {
  type: "string",
  title: "ErrorCode",
  description: `What went wrong, as the contract names it. The HTTP status follows from the code. ${OPEN_CODES} Every error also carries \`user_message\`, a sentence for the app's user in the language Accept-Language prefers (${LANGUAGES.map((language) => `\`${language}\``).join(", ")}; Content-Language names it): \`x-user-messages\` lists each code's, by language, and \`x-decline-reason-user-messages\` card_declined's by \`decline_reason\` (a reason not listed there keeps card_declined's own).

| code | HTTP | meaning |
|---|---|---|
${ERROR_CODE_NAMES.map(
    (code) => `| \`${code}\` | ${ERROR_CODES[code].status} | ${ERROR_CODES[code].meaning} |`
  ).join("\n")}`,
  enum: [...ERROR_CODE_NAMES],
  "x-enum-descriptions": ERROR_CODE_NAMES.map((code) => ERROR_CODES[code].meaning),
  "x-user-messages": Object.fromEntries(ERROR_CODE_NAMES.map((code) => [code, ERROR_CODES[code].user_message])),
  "x-decline-reason-user-messages": DECLINE_REASONS
};
var ERROR_SCHEMA_CODE = {
  description: `The contract's error code: one of ErrorCode; each response lists the codes its status carries on that operation. ${OPEN_CODES}`,
  anyOf: [{ $ref: "#/components/schemas/ErrorCode" }, { type: "string", description: "A code newer than this document." }]
};
function errorResponse(status, codes) {
  const headers = { "X-Request-Id": headerRef("X-Request-Id"), "Content-Language": headerRef("Content-Language") };
  const retrying = codes.filter((code) => RETRY_CODES.has(code));
  if (retrying.length === codes.length) headers["Retry-After"] = headerRef("Retry-After");
  else if (retrying.length > 0) {
    headers["Retry-After"] = {
      ...HEADERS2["Retry-After"],
      required: false,
      description: `Seconds to wait before retrying; sent with ${retrying.map((code) => `\`${code}\``).join(" and ")} only.`
    };
  }
  if (status === 401) headers["WWW-Authenticate"] = headerRef("WWW-Authenticate");
  if (status === 405) headers.Allow = headerRef("Allow");
  return {
    description: `Error:
${codes.map((code) => `- \`${code}\`: ${ERROR_CODES[code].meaning}`).join("\n")}`,
    headers,
    content: {
      "application/json": {
        schema: errorSchema(codes),
        examples: Object.fromEntries(codes.map((code) => [code, { summary: code, value: errorExample(code) }]))
      }
    }
  };
}
__name(errorResponse, "errorResponse");
function documented(doc, { tags, partnerOnly }) {
  const keyed2 = doc.lifecycle !== void 0 && KEYED_OPERATIONS.includes(doc.lifecycle);
  const errors = keyed2 ? [...doc.errors, "idempotency_key_reused"] : doc.errors;
  const errorResponses = Object.fromEntries(
    [...errorCodesByStatus(errors).entries()].map(([status, codes]) => [String(status), errorResponse(status, codes)])
  );
  const links = doc.links;
  const takesKey = keyed2 || (doc.headers ?? []).includes("Idempotent-Replayed");
  const successHeaders = [.../* @__PURE__ */ new Set([...doc.headers ?? [], ...keyed2 ? ["Idempotent-Replayed"] : []])];
  return describeRoute({
    operationId: doc.operationId,
    // Read and removed by finish(), once the request body is a component to copy.
    ...doc.aliases ? { [ALIASES2]: doc.aliases } : {},
    ...takesKey ? { parameters: [{ $ref: "#/components/parameters/IdempotencyKey" }] } : {},
    summary: doc.summary,
    description: doc.description,
    tags,
    security: partnerOnly ? [{ partnerKey: [] }] : [{ partnerKey: [] }, { userJwt: [] }],
    responses: {
      [doc.status ?? 200]: {
        description: doc.status === 202 ? "Accepted" : "Success",
        headers: {
          "X-Request-Id": headerRef("X-Request-Id"),
          ...Object.fromEntries(successHeaders.map((name) => [name, headerRef(name)]))
        },
        content: { "application/json": { schema: resolver(doc.response), examples: { sandbox: doc.example } } },
        ...links ? {
          links: Object.fromEntries(
            Object.entries(links).map(([name, link]) => [
              name,
              { operationId: link.operationId, description: link.description, requestBody: { id: `$response.body#/${link.field}` } }
            ])
          )
        } : {}
      },
      ...errorResponses
    }
  });
}
__name(documented, "documented");
var SERVERS = [
  {
    url: "/",
    description: "This gateway, wherever it answers (the try-it panel of /docs sends here; `npm run dev` serves http://127.0.0.1:8787 with the sandbox upstream).",
    "x-internal": false
  },
  {
    url: "https://{host}",
    description: "Production: the partner's own deployment (a placeholder until it has a name).",
    variables: { host: { default: "gateway.partner.invalid", description: "The production deployment's host name." } },
    "x-internal": false
  }
];
var DOCUMENTATION = {
  openapi: "3.1.0",
  info: {
    title: "Payments edge gateway",
    version: "1.0.0",
    description: 'The partner receipt API of the payment service, proxied at the edge. Paths and bodies are the upstream\'s; the gateway adds tid uniqueness with safe retries, the three-wrong-OTPs rule, ownership checks and validation. Every error is `{"error": {"code", "message", "user_message", "request_id", ...}}`, its `user_message` a sentence for the app\'s user in the language Accept-Language prefers (`uz`, `uz-Cyrl`, `ru` or `en`, named by Content-Language); every response carries `X-Request-Id`. Calls without a valid partner key or user JWT answer 401 `unauthorized`. A deployment whose configuration is unsafe (development credentials in production, no way to verify callers) answers every call with 503 `service_misconfigured`, naming the problem. Every operation is a POST; another method answers 405 `method_not_allowed` with `Allow: POST`.'
  },
  tags: [
    { name: "Receipts", description: "Payment receipts: create, send the OTP, pay, hold-confirm, cancel, read." },
    { name: "Transfers (a2c)", description: "Card-to-card transfers: create, confirm, read." },
    {
      name: "Gateway",
      description: "The gateway's own operations (partner server key only): audit trails, events, erasure and the receipts whose fiscal receipt is missing."
    },
    { name: "Operations", description: "Probes for load balancers and the engineer on call: GET, no credentials." },
    { name: "Events (webhooks)", description: "What the gateway POSTs to the partner's WEBHOOK_URL, signed as Standard Webhooks do." }
  ],
  components: {
    parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
    securitySchemes: {
      partnerKey: {
        type: "http",
        scheme: "bearer",
        description: "Partner backend server key (`sk_...`): every operation on every receipt and transfer. Not subject to the per-user and per-address limits."
      },
      userJwt: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "A user's JWT from the partner's identity provider: RS256 or ES256, verified against its JWKS (HS256 with a shared secret in local development only). Handled as RFC8725 (JSON Web Token Best Current Practices) asks: the algorithms are pinned (never `none`, never chosen by the token), `sub` is the user and `exp` is required; `iss` and `aud` are checked when the deployment sets them; 30 s of clock skew is allowed. A user acts only on their own receipts and transfers (another's answers `receipt_not_found`); hold-confirm and the cancel of a paid receipt are partner-only (`forbidden`). authorize and pay are limited per user and per client address (`rate_limited` with `Retry-After`)."
      }
    }
  }
};
function hoist(node, schemas, names) {
  if (Array.isArray(node)) return node.map((item) => hoist(item, schemas, names));
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) out[key] = hoist(value, schemas, names);
  const title2 = out.title;
  if (typeof title2 === "string" && names.has(title2) && (out.type !== void 0 || out.allOf !== void 0 || out.anyOf !== void 0 || out.oneOf !== void 0)) {
    schemas[title2] ??= out;
    return { $ref: `#/components/schemas/${title2}` };
  }
  return out;
}
__name(hoist, "hoist");
var COMPONENT_NAMES = /* @__PURE__ */ new Set([
  "Receipt",
  "ReducedReceipt",
  "TransferReceipt",
  "Party",
  "MerchantDetails",
  "MerchantField",
  "OfdDetails",
  "TransferOfd",
  "AuthorizeResult",
  "Event",
  "ReceiptEvent",
  "TransferEvent",
  "Error",
  "ReceiptState",
  "TransferState",
  "AccountEntry",
  "AccountEntryInput",
  "TokenCard",
  "NumberCard",
  "AuditTrail",
  "CreateReceiptRequest",
  "ReceiptIdRequest",
  "AuthorizeRequest",
  "AnonymousAuthorizeRequest",
  "PayRequest",
  "AnonymousPayRequest",
  "CancelRequest",
  "CheckTidRequest",
  "CreateTransferRequest",
  "PayTransferRequest",
  "AuditRequest",
  "AuditSearchRequest",
  "AuditSearchPage",
  "ListStatementsRequest",
  "StatementPage",
  "RebuildStatementRequest",
  "StatementStatus",
  "ListEventsRequest",
  "ResendEventRequest",
  "EraseUserRequest",
  "ErasureAccepted",
  "ListFiscalPendingRequest",
  "FiscalPendingPage"
]);
async function finish(generated) {
  const { webhooks, event } = await eventWebhooks();
  const error = (await resolver(ErrorBody).toOpenAPISchema()).schema;
  error.properties.error.properties.code = ERROR_SCHEMA_CODE;
  const schemas = {};
  const hoisted = hoist(
    {
      paths: generated.paths,
      webhooks,
      components: { schemas: { ...generated.components?.schemas, Event: event, Error: error } }
    },
    schemas,
    COMPONENT_NAMES
  );
  const all = { ...hoisted.components.schemas, ...schemas, ErrorCode: ERROR_CODE_SCHEMA };
  admitAliases(hoisted.paths, all);
  return {
    ...generated,
    servers: SERVERS,
    paths: { ...hoisted.paths, ...STATEMENT_FILES, ...PROBES },
    webhooks: hoisted.webhooks,
    components: {
      ...generated.components,
      schemas: Object.fromEntries(
        Object.keys(all).sort().map((name) => [name, all[name]])
      ),
      headers: HEADERS2
    }
  };
}
__name(finish, "finish");
var ALIASES2 = "x-gateway-aliases";
function admitAliases(paths, schemas) {
  for (const item of Object.values(paths)) {
    const post = item?.post;
    const aliases = post?.[ALIASES2];
    if (!post || !aliases) continue;
    delete post[ALIASES2];
    const media = post.requestBody.content["application/json"];
    const ref = media.schema.$ref;
    const name = ref.split("/").pop();
    const aliased = `${name}${Object.keys(aliases).map((alias) => alias[0]?.toUpperCase() + alias.slice(1)).join("")}`;
    schemas[aliased] = withAliases(schemas[name], aliases, aliased);
    media.schema = { anyOf: [{ $ref: ref }, { $ref: `#/components/schemas/${aliased}` }] };
  }
}
__name(admitAliases, "admitAliases");
function withAliases(shape, aliases, title2) {
  const aliasOf = new Map(Object.entries(aliases).map(([alias, name]) => [name, alias]));
  const properties = {};
  for (const [key, schema] of Object.entries(shape.properties)) {
    const alias = aliasOf.get(key);
    if (alias === void 0) {
      properties[key] = schema;
      continue;
    }
    properties[alias] = {
      ...schema,
      deprecated: true,
      description: `\`${key}\` as the payment service spells it, accepted for it (prefer \`${key}\`). ${String(schema.description ?? "")}`.trim()
    };
    properties[key] = { ...schema, description: `Optional beside \`${alias}\`; when both are sent, they must be the same value.` };
  }
  const rename = /* @__PURE__ */ __name((key) => aliasOf.get(key) ?? key, "rename");
  return {
    ...shape,
    properties,
    required: shape.required.map(rename),
    ...shape.examples ? { examples: shape.examples.map((example) => Object.fromEntries(Object.entries(example).map(([key, value]) => [rename(key), value]))) } : {},
    title: title2
  };
}
__name(withAliases, "withAliases");
var PROBE_ALLOW = {
  description: "The methods the probe answers: `GET, HEAD`.",
  required: true,
  schema: { type: "string", enum: ["GET, HEAD"] }
};
var probe = /* @__PURE__ */ __name((operationId, summary, description2, failure) => {
  const failures = failure === "not_ready" ? ["not_ready", "service_misconfigured"] : ["service_misconfigured"];
  const unavailable2 = errorResponse(503, failures);
  const wrongMethod = errorResponse(405, ["method_not_allowed"]);
  const wrongMethodHeaders = { ...wrongMethod.headers, Allow: PROBE_ALLOW };
  return {
    get: {
      operationId,
      summary,
      description: `${description2} HEAD answers the same status and headers without a body. Another method than GET or HEAD answers 405 \`method_not_allowed\` with \`Allow: GET, HEAD\`.`,
      tags: ["Operations"],
      security: [],
      responses: {
        "200": {
          description: "Ready",
          headers: { "X-Request-Id": headerRef("X-Request-Id") },
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["ok"],
                properties: { ok: { type: "boolean", const: true }, upstream: { type: "string", const: "ok" }, db: { type: "string", const: "ok" } }
              }
            }
          }
        },
        "405": { ...wrongMethod, headers: wrongMethodHeaders },
        "503": unavailable2
      }
    },
    head: {
      operationId: `${operationId}Head`,
      summary: `${summary} (status and headers only)`,
      description: `As GET ${operationId === "health" ? "/healthz" : "/readyz"}, without a body.`,
      tags: ["Operations"],
      security: [],
      responses: {
        "200": { description: "Ready (no body)", headers: { "X-Request-Id": headerRef("X-Request-Id") } },
        "405": { description: `${wrongMethod.description}

(As GET's, without the body.)`, headers: wrongMethodHeaders },
        "503": { description: `${unavailable2.description}

(As GET's, without the body.)`, headers: unavailable2.headers }
      }
    }
  };
}, "probe");
var PROBES = {
  "/healthz": probe(
    "health",
    "Is the process up and its configuration sound?",
    '200 `{"ok": true}` while the configuration passes the misconfiguration guard; 503 `service_misconfigured` naming the problem otherwise. It does not call the upstream or D1: that is /readyz.',
    "service_misconfigured"
  ),
  "/readyz": probe(
    "readiness",
    "Can the gateway serve payments right now?",
    "An authenticated probe of the upstream (check-id of an id that cannot exist: 404 means it answers and accepts the gateway's credential) and a D1 query, each within 2 s, which also checks that the database's schema is at the newest migration the code was built with. 503 `not_ready` names what failed (never a secret), with `Retry-After`.",
    "not_ready"
  )
};
var int = /* @__PURE__ */ __name((description2) => ({
  type: "integer",
  format: "int64",
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: description2
}), "int");
var text = /* @__PURE__ */ __name((description2) => ({ type: "string", maxLength: 255, description: description2 }), "text");
var nullableInt = /* @__PURE__ */ __name((description2) => ({ type: ["integer", "null"], format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: description2 }), "nullableInt");
var nullableText = /* @__PURE__ */ __name((description2) => ({ type: ["string", "null"], maxLength: 255, description: description2 }), "nullableText");
var CHANGES = ["paid", "held", "cancelled", "refunded", "expired", "closed_at_edge"];
var KINDS_ENUM = { type: "string", enum: ["receipt", "transfer"] };
var STATEMENT_JSON = {
  type: "object",
  required: [
    "date",
    "timezone",
    "from",
    "to",
    "complete",
    "lines",
    "totals",
    "mismatches",
    "mismatches_total",
    "checked",
    "lines_total",
    "generated_at"
  ],
  properties: {
    date: text("The day, YYYY-MM-DD in STATEMENT_TIMEZONE."),
    timezone: text("STATEMENT_TIMEZONE."),
    from: int("The day's first millisecond."),
    to: int("The next day's first millisecond."),
    complete: { type: "boolean", description: "false: written before the day ended." },
    lines: {
      type: "array",
      maxItems: 1e8,
      items: {
        type: "object",
        required: ["id", "kind", "tid", "owner", "merchant_id", "change", "state", "amount", "commission", "at", "time", "fiscal_sign", "event_id"],
        properties: {
          id: text("The receipt's id or the transfer's receipt_id."),
          kind: KINDS_ENUM,
          tid: nullableText("As its owner chose it."),
          owner: nullableText("partner, or the user's sub."),
          merchant_id: nullableInt("null: a transfer."),
          change: { type: "string", enum: CHANGES },
          state: nullableInt("The state the change left."),
          amount: nullableInt("Tiyin."),
          commission: nullableInt("Tiyin."),
          at: int("Milliseconds."),
          time: text("Local time, YYYY-MM-DD HH:MM:SS."),
          fiscal_sign: nullableText("The fiscal sign the change showed, if any."),
          event_id: text("The event of the change.")
        }
      }
    },
    totals: {
      type: "array",
      maxItems: 1e5,
      items: {
        type: "object",
        required: ["merchant_id", "change", "count", "amount", "commission", "amount_sum", "commission_sum"],
        properties: {
          merchant_id: nullableInt("null: transfers."),
          change: { type: "string", enum: CHANGES },
          count: int("Lines."),
          amount: int("Tiyin."),
          commission: int("Tiyin."),
          amount_sum: text("Sum, two decimals."),
          commission_sum: text("Sum, two decimals.")
        }
      }
    },
    mismatches: {
      type: "array",
      maxItems: 1e4,
      items: {
        type: "object",
        required: ["id", "kind", "event_id", "field", "statement", "upstream"],
        properties: {
          id: text("The receipt or transfer."),
          kind: KINDS_ENUM,
          event_id: text("The line's event."),
          field: text("amount, commission, merchant_id, state or exists."),
          statement: text("What the line says."),
          upstream: text("What the payment service shows.")
        }
      }
    },
    mismatches_total: int("Every mismatch (the first 10,000 are listed)."),
    checked: int("Lines compared with the payment service."),
    lines_total: int("Lines."),
    generated_at: int("Milliseconds: when it was written.")
  }
};
var statementFile2 = /* @__PURE__ */ __name((format) => ({
  get: {
    operationId: format === "csv" ? "getStatementCsv" : "getStatementJson",
    summary: `A day's statement as ${format.toUpperCase()} (partner only)`,
    description: format === "csv" ? "The day's statement (rule 16) as a CSV a spreadsheet opens as it is: UTF-8 with a BOM, CRLF, a header row, RFC 4180 quoting; one row per line (`record` line), then its totals per merchant and change (`total`), then its mismatches with the payment service (`mismatch`); amounts as integers in tiyin and as sums. Streamed as written; 404 `not_found` for a day not written (statements/rebuild writes one)." : "The day's statement (rule 16) as JSON: `{date, timezone, from, to, complete, lines, totals, mismatches, mismatches_total, checked, lines_total, generated_at}`. Streamed as written; 404 `not_found` for a day not written.",
    tags: ["Gateway"],
    security: [{ partnerKey: [] }],
    parameters: [
      {
        name: "date",
        in: "path",
        required: true,
        description: "A day in STATEMENT_TIMEZONE.",
        schema: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", maxLength: 10 }
      }
    ],
    responses: {
      "200": {
        description: "The statement",
        headers: { "X-Request-Id": headerRef("X-Request-Id") },
        content: format === "csv" ? { "text/csv": { schema: { type: "string", maxLength: 5e9 } } } : { "application/json": { schema: STATEMENT_JSON } }
      },
      ...Object.fromEntries(
        [...errorCodesByStatus(["forbidden", "not_found"]).entries()].filter(([status]) => [401, 403, 404, 500, 503].includes(status)).map(([status, codes]) => [
          String(status),
          errorResponse(
            status,
            codes.filter(
              (code) => ["unauthorized", "forbidden", "not_found", "internal_error", "service_misconfigured", "not_ready"].includes(code)
            )
          )
        ])
      )
    }
  }
}), "statementFile");
var STATEMENT_FILES = {
  "/api/v1/gateway/statements/{date}.csv": statementFile2("csv"),
  "/api/v1/gateway/statements/{date}.json": statementFile2("json")
};
function openApiDocument(app2) {
  const generate = openAPIRouteHandler(app2, { documentation: DOCUMENTATION });
  let built;
  return async (c) => {
    built ??= (async () => {
      const res = await generate(c, async () => {
      });
      return finish(await res.json());
    })().catch((err) => {
      built = void 0;
      throw err;
    });
    return c.json(await built);
  };
}
__name(openApiDocument, "openApiDocument");

// src/operations/router.ts
function apiRouter(api) {
  const router = new Hono3();
  const routes2 = api.sections.flatMap((section) => section.operations.map((operation2) => ({ operation: operation2, tags: [section.tag] })));
  router.use(onlyPost(new Set(routes2.map(({ operation: operation2 }) => `${api.prefix}${operation2.path}`)), api.name));
  router.use(authenticate);
  if (api.callers === "partner") router.use(requirePartner);
  router.use(requireJson, limitBody, parseJson);
  for (const { operation: operation2, tags } of routes2) {
    if (operation2.callers === "partner" && api.callers !== "partner" && operation2.lifecycle === void 0) {
      throw new Error(`${operation2.operationId} is partner-only, but neither its API nor a lifecycle operation refuses users.`);
    }
    const partnerOnly = api.callers === "partner" || operation2.callers === "partner";
    const limit = operation2.limit ? [rateLimit(operation2.limit)] : [];
    router.post(
      operation2.path,
      documented(operation2, { tags, partnerOnly }),
      ...operation2.aliases ? [acceptAliases(operation2.aliases)] : [],
      jsonBody(operation2.request),
      ...limit,
      (c) => operation2.handle(c, c.req.valid("json"))
    );
  }
  return router;
}
__name(apiRouter, "apiRouter");
function onlyPost(operations, name) {
  return createMiddleware(async (c, next) => {
    if (c.req.method === "POST") return next();
    if (!operations.has(c.req.path)) {
      throw new ApiError("not_found", `No such operation. ${name} operations are POST requests with a JSON body.`);
    }
    throw new ApiError("method_not_allowed", `${name} operations are POST requests with a JSON body; ${c.req.method} is not allowed.`, {
      headers: { Allow: "POST" }
    });
  });
}
__name(onlyPost, "onlyPost");

// src/operations/index.ts
var PARTNER_API = { prefix: "/api/v1/partner", name: "Partner", sections: [RECEIPTS, TRANSFERS] };
var GATEWAY_API = { prefix: "/api/v1/gateway", name: "Gateway", callers: "partner", sections: [GATEWAY] };
var APIS = [PARTNER_API, GATEWAY_API];

// src/operations/canonical-line.ts
var canonicalLine = /* @__PURE__ */ __name(async (c, next) => {
  const started = Date.now();
  const method = c.req.method === "POST" ? {} : { method: c.req.method };
  const line = new LogLine("request", { request_id: c.var.requestId, ...method, path: c.req.path }, { sample: readConfig(c.env).logSuccessSample });
  try {
    await inLine(line, next);
  } finally {
    line.set({ status: c.res.status, ...c.var.caller ? { caller: c.var.caller.kind } : {}, ms: Date.now() - started });
    line.write();
  }
}, "canonicalLine");

// src/record/erase.ts
function eraseRecord2(parts2) {
  const erasers = {
    record: /* @__PURE__ */ __name(() => parts2.recorder.erase(), "record"),
    record_events: /* @__PURE__ */ __name(() => parts2.outbox.erase(), "record_events"),
    idempotency_keys: /* @__PURE__ */ __name(() => parts2.keys.erase(), "idempotency_keys")
  };
  parts2.store.change(() => {
    for (const erase of implementations(storesErasedBy("record"), erasers)) erase();
  });
}
__name(eraseRecord2, "eraseRecord");

// src/record/restore.ts
var PITR_WINDOW_MS = 30 * 24 * 60 * 60 * 1e3;
var carryOf = /* @__PURE__ */ __name((rec) => ({
  event_seq: rec.event_seq,
  erased: rec.erased,
  state: rec.state,
  wrong_otps: rec.wrong_otps,
  unconfirmed_otps: rec.unconfirmed_otps,
  otp_sends: rec.otp_sends,
  last_otp_sent_at: rec.last_otp_sent_at,
  edge_closed: rec.edge_closed
}), "carryOf");
function unavailable(err) {
  const reason = err instanceof Error ? err.message : String(err);
  return fail(
    "not_ready",
    `Point-in-time recovery of this Durable Object is not available: ${reason} Records are restored only on Cloudflare, to a time within the last 30 days; nothing was scheduled.`
  );
}
__name(unavailable, "unavailable");
var RecordRestore = class {
  static {
    __name(this, "RecordRestore");
  }
  #storage;
  #parts;
  #moves;
  constructor(storage, parts2, moves) {
    this.#storage = storage;
    this.#parts = parts2;
    this.#moves = moves;
  }
  /** Step 1 (this module's header). */
  async prepare(request) {
    if (this.#moves.busy) return fail("operation_in_progress", "An operation on this record is in flight; retry the restore in a few seconds.");
    const rec = this.#parts.store.load();
    if (rec && request.at < rec.created_at) {
      const message2 = `at is before this ${rec.kind} was created (${new Date(rec.created_at).toISOString()}): restored there, it would hold nothing.`;
      return fail("invalid_request", message2, { details: [{ path: "at", message: "at must not be before the record was created" }] });
    }
    let bookmark;
    try {
      bookmark = await this.#storage.getBookmarkForTime(request.at);
    } catch (err) {
      return unavailable(err);
    }
    const carry = rec ? carryOf(rec) : null;
    if (request.dryRun) return { ok: true, value: { bookmark, undoBookmark: await this.#storage.getCurrentBookmark(), carry } };
    let undoBookmark;
    try {
      undoBookmark = await this.#storage.onNextSessionRestoreBookmark(bookmark);
    } catch (err) {
      return unavailable(err);
    }
    this.#moves.freeze();
    log("warn", "record_restore_scheduled", {
      kind: rec?.kind,
      id: rec?.id,
      at: request.at,
      bookmark,
      undo_bookmark: undoBookmark,
      request_id: request.requestId
    });
    return { ok: true, value: { bookmark, undoBookmark, carry } };
  }
  /** Step 2 (this module's header), in the restarted object. */
  async complete(note2) {
    const { store: store2, outbox, ledger } = this.#parts;
    const rec = store2.load();
    const fields = { at: note2.at, bookmark: note2.bookmark, undo_bookmark: note2.undoBookmark, request_id: note2.requestId };
    if (!rec) {
      log("warn", "record_restored", { ...fields, present: false, state_before: note2.carry?.state ?? null });
      return { present: false, state: null, sequence: null, upstream: null };
    }
    const carry = note2.carry;
    store2.change(() => {
      if (carry) {
        outbox.continueAfter(carry.event_seq);
        ledger.carry(carry);
        if (carry.erased === 1 && store2.current.erased === 0) eraseRecord2(this.#parts);
      }
      store2.trail.add({ at: clock.now(), op: "restore", actor: "operator", request_id: note2.requestId, outcome: "ok" });
    });
    const looked = await this.#moves.catchUp(note2.requestId);
    const after = store2.current;
    const upstream = looked.ok ? "ok" : looked.error.code;
    log("warn", "record_restored", {
      ...fields,
      kind: after.kind,
      id: after.id,
      present: true,
      state_before: carry?.state ?? null,
      state_restored: rec.state,
      state: after.state,
      upstream
    });
    return { present: true, state: after.state, sequence: after.event_seq, upstream };
  }
};

// src/operations/restore.ts
var RESTORE_PATH = "/api/v1/operator/restore";
var DIGEST2 = /^[0-9a-f]{64}$/;
var MAX_KEY_LENGTH = 512;
var RestoreRequestBody = strictObject({
  kind: picklist(KIND_NAMES, "kind must be receipt or transfer"),
  id: ReceiptId,
  at: pipe(string("at must be a string"), isoTimestamp("at must be an ISO 8601 time with its offset, e.g. 2026-11-24T10:00:00Z")),
  dry_run: optional(boolean("dry_run must be a boolean"), false)
});
function restoreDigest(env) {
  const digest = (env.RESTORE_KEY_HASH ?? "").trim();
  if (!digest) return "absent";
  if (!DIGEST2.test(digest)) return "malformed";
  const bytes2 = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes2[i] = Number.parseInt(digest.slice(2 * i, 2 * i + 2), 16);
  return bytes2;
}
__name(restoreDigest, "restoreDigest");
var unauthorized3 = /* @__PURE__ */ __name((message2) => new ApiError("unauthorized", message2, { headers: { "WWW-Authenticate": 'Bearer realm="payments-gateway-operator"' } }), "unauthorized");
async function requireRestoreKey(c, digest) {
  const match2 = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!match2) throw unauthorized3("Send Authorization: Bearer <restore key>.");
  const key = match2[1];
  if (key.length > MAX_KEY_LENGTH) throw unauthorized3("The restore key is not valid.");
  const presented = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  if (!crypto.subtle.timingSafeEqual(presented, digest)) throw unauthorized3("The restore key is not valid.");
}
__name(requireRestoreKey, "requireRestoreKey");
function validBody(body, now) {
  const parsed = safeParse(RestoreRequestBody, body);
  if (!parsed.success) refuseBody(RestoreRequestBody, body, parsed.issues);
  const at = Date.parse(parsed.output.at);
  const refuse4 = /* @__PURE__ */ __name((message2) => new ApiError("invalid_request", message2, { details: [{ path: "at", message: message2 }] }), "refuse");
  if (at > now) throw refuse4("at must be in the past");
  if (now - at > PITR_WINDOW_MS) throw refuse4("at must be within the last 30 days (the window of point-in-time recovery)");
  return { ...parsed.output, atMs: at };
}
__name(validBody, "validBody");
var restoreDoor = createMiddleware(async (c, next) => {
  const digest = restoreDigest(c.env);
  if (digest === "absent") return c.notFound();
  if (digest === "malformed") {
    throw new ApiError("service_misconfigured", "RESTORE_KEY_HASH is not a lowercase hex SHA-256 digest: no restore key can be accepted.");
  }
  await requireRestoreKey(c, digest);
  await next();
});
async function restoreRecord(c) {
  const { kind, id, at, atMs, dry_run: dryRun } = validBody(await c.req.json(), clock.now());
  const requestId2 = c.var.requestId;
  const prepared = await receiptStub(c.env, kind, id).restorePrepare({ at: atMs, requestId: requestId2, dryRun });
  if (!prepared.ok) {
    log("warn", "record_restore_refused", { kind, id, at: atMs, request_id: requestId2, code: prepared.error.code, reason: prepared.error.message });
    throw ApiError.from(prepared.error);
  }
  const plan = prepared.value;
  const before = plan.carry ? { state: plan.carry.state, sequence: plan.carry.event_seq } : null;
  const answer = { kind, id, at, dry_run: dryRun, bookmark: plan.bookmark, undo_bookmark: plan.undoBookmark, before };
  if (dryRun) return c.json({ ...answer, record: null }, 200);
  await receiptStub(c.env, kind, id).restart(`point-in-time restore ${requestId2}`).catch(() => void 0);
  const note2 = { ...plan, at: atMs, requestId: requestId2 };
  let record;
  let failure;
  for (let attempt = 0; attempt < 3 && record === void 0; attempt++) {
    try {
      record = await receiptStub(c.env, kind, id).restoreSettle(note2);
    } catch (err) {
      failure = err;
    }
  }
  if (record === void 0) {
    log("error", "record_restore_unsettled", {
      kind,
      id,
      request_id: requestId2,
      note: note2,
      error: failure instanceof Error ? failure.message : String(failure)
    });
    throw new ApiError(
      "upstream_error",
      "The record was restored, but its restarted object did not answer, so what the restore carries over (the event sequence, the OTP counts, an erasure) is not applied. Do not repeat the restore: follow record_restore_unsettled in docs/production.md."
    );
  }
  log("warn", "record_restore", { kind, id, at: atMs, bookmark: plan.bookmark, undo_bookmark: plan.undoBookmark, request_id: requestId2, ...record });
  return c.json({ ...answer, record }, 200);
}
__name(restoreRecord, "restoreRecord");

// src/app.ts
function createApp() {
  const app2 = new Hono3();
  app2.use(requestId());
  app2.use(canonicalLine);
  app2.use(negotiateLanguage);
  app2.onError(renderError);
  const operations = new Set(APIS.flatMap((api) => api.sections.flatMap((section) => section.operations.map((op) => `${api.prefix}${op.path}`))));
  app2.notFound((c) => {
    const trimmed = c.req.path.replace(/\/+$/, "");
    if (trimmed !== c.req.path && operations.has(trimmed))
      throw new ApiError("not_found", `No such path: the operation is ${trimmed}, without the trailing slash.`);
    throw new ApiError("not_found", "No such path. POST operations live under /api/v1/partner/ (and the partner's own under /api/v1/gateway/).");
  });
  app2.use(requireSoundConfig);
  app2.get("/healthz", (c) => c.json({ ok: true }));
  app2.get("/readyz", async (c) => c.json(await checkReadiness(c.env, c.var.requestId), 200));
  app2.all("/healthz", onlyGet);
  app2.all("/readyz", onlyGet);
  app2.use(`${GATEWAY_API.prefix}/*`, auditCalls(GATEWAY_API.prefix));
  app2.use(RESTORE_PATH, auditCalls("/api/v1/operator"));
  app2.post(RESTORE_PATH, restoreDoor, requireJson, limitBody, parseJson, restoreRecord);
  app2.get(`${GATEWAY_API.prefix}/statements/:file`, authenticate, requirePartner, statementFile);
  for (const api of APIS) app2.route(api.prefix, apiRouter(api));
  app2.route("/console", backOffice());
  app2.get("/openapi.json", openApiDocument(app2));
  app2.get("/", (c) => serveAsset(c.env, c.req.raw, "/"));
  app2.get("/docs", (c) => serveAsset(c.env, c.req.raw, "/docs"));
  return app2;
}
__name(createApp, "createApp");
function onlyGet(c) {
  throw new ApiError("method_not_allowed", `${c.req.path} answers GET (and HEAD); ${c.req.method} is not allowed.`, {
    headers: { Allow: "GET, HEAD" }
  });
}
__name(onlyGet, "onlyGet");
async function serveAsset(env, request, path) {
  const response = await env.ASSETS.fetch(new URL(path, request.url), { method: request.method, headers: request.headers });
  if (response.status === 404) throw new ApiError("not_found", "The reference page was not built: run npm run build:docs.");
  return response;
}
__name(serveAsset, "serveAsset");

// src/cron/retention.ts
var PRUNERS = {
  tid_index: [
    // The walk by rowid behind its cursor: four statements a batch.
    { name: "tids_deleted", counts: "tids_deleted", queries: 4, batch: /* @__PURE__ */ __name((db, p, limit, now) => pruneTids(db, p.tidRetentionMs, limit, now), "batch") },
    // The rows answered long after their claim, which the walk passes: a range of tid_index_late (and the cursor kept in the table).
    {
      name: "tids_late_deleted",
      counts: "tids_deleted",
      queries: 2,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => deleteLateTids(db, p.tidRetentionMs, limit, now), "batch")
    },
    // A growing list's fences (src/tids/tid-index.ts, claimIndexFor), once every row they stood for is gone.
    {
      name: "tid_fences_deleted",
      counts: "tid_fences_deleted",
      queries: 2,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => deleteFences(db, p.tidRetentionMs, limit, now), "batch")
    },
    // The ring of slots: the one the next period writes to is emptied whole, once a period (a probe of one row otherwise).
    {
      name: "tid_slot_emptied",
      counts: "tids_deleted",
      queries: EMPTY_TID_SLOT_QUERIES,
      batch: /* @__PURE__ */ __name((db, p, _limit, now) => emptyTidSlot(db, p.tidRetentionMs, now), "batch")
    }
  ],
  event_log: [
    // The walk behind its cursor: four statements a batch.
    {
      name: "events_delivered_pruned",
      counts: "events_delivered_pruned",
      queries: 4,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => pruneDelivered(db, p.deliveredEventsMs, limit, now), "batch")
    },
    {
      name: "events_watched_delivered_pruned",
      counts: "events_delivered_pruned",
      queries: 1,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => pruneWatched(db, "delivered", p.deliveredEventsMs, limit, now), "batch")
    },
    {
      name: "events_failed_pruned",
      counts: "events_undelivered_pruned",
      queries: 1,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => pruneWatched(db, "failed", p.undeliveredEventsMs, limit, now), "batch")
    },
    {
      name: "events_pending_pruned",
      counts: "events_undelivered_pruned",
      queries: 1,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => pruneWatched(db, "pending", p.undeliveredEventsMs, limit, now), "batch")
    },
    // The ring's slots (src/d1/ring.ts): the one the next period writes to, emptied whole once it holds a row.
    { name: "event_slots_emptied", counts: "event_slots_emptied", queries: EMPTY_EVENT_SLOT_QUERIES, batch: emptySlot }
  ],
  event_attempts: [
    {
      name: "event_attempts_pruned",
      counts: "event_attempts_pruned",
      queries: 1,
      batch: /* @__PURE__ */ __name((db, p, limit, now) => pruneAttempts(db, Math.max(p.deliveredEventsMs, p.undeliveredEventsMs), limit, now), "batch")
    }
  ],
  erasure_requests: [
    {
      name: "erasures_deleted",
      counts: "erasures_deleted",
      queries: 1,
      batch: /* @__PURE__ */ __name((db, _p, limit, now) => deleteDoneErasures(db, now - ERASURE_REQUESTS_KEPT_DAYS * DAY_MS2, limit), "batch")
    }
  ]
};
async function emptySlot(db, policy, _limit, now) {
  const copied = await emptyEventSlot(db, policy.deliveredEventsMs, policy.undeliveredEventsMs, now);
  return { removed: copied === null ? 0 : 1, more: false };
}
__name(emptySlot, "emptySlot");
var pruned = /* @__PURE__ */ __name(() => {
  const stores = storesEndedBy("cron");
  return implementations(stores, PRUNERS).map((steps, i) => ({ store: stores[i], steps }));
}, "pruned");
var livesIn = /* @__PURE__ */ __name((store2, binding) => store2.place.kind === "d1" && store2.place.databases === "all" || binding === "DB", "livesIn");
var queriesPerRound = /* @__PURE__ */ __name((binding) => pruned().filter(({ store: store2 }) => livesIn(store2, binding)).reduce((sum, { steps }) => sum + steps.reduce((n, step) => n + step.queries, 0), 0), "queriesPerRound");
var RETENTION_QUERIES_PER_ROUND = queriesPerRound("");
var FIRST_DATABASE_QUERIES_PER_ROUND = queriesPerRound("DB") - RETENTION_QUERIES_PER_ROUND;
var SWEEP_QUERIES_PER_DATABASE = 2 + 3 * EVENT_TABLES.length;
var cronQueriesPerDatabase = /* @__PURE__ */ __name((policy) => RETENTION_QUERIES_PER_ROUND * policy.rounds + SWEEP_QUERIES_PER_DATABASE, "cronQueriesPerDatabase");
function cronShards(env, now, policy = retentionPolicy(env)) {
  const perRun = databasesPerRun(cronQueriesPerDatabase(policy), QUERY_BUDGET - FIRST_DATABASE_QUERIES_PER_ROUND * policy.rounds);
  return cronSlice(allShards(env), perRun, Math.floor(now / 6e4));
}
__name(cronShards, "cronShards");
async function drain(policy, batch) {
  let removed = 0;
  for (let round = 0; round < policy.rounds; round++) {
    const result = await batch(policy.batchSize);
    const n = typeof result === "number" ? result : result.removed;
    removed += n;
    if (typeof result === "number" ? n < policy.batchSize : !result.more) return { removed, full: false };
  }
  return { removed, full: true };
}
__name(drain, "drain");
async function runRetention(env, now, policy = retentionPolicy(env), databases2) {
  const started = Date.now();
  const failed = [];
  let firstError;
  let backlog = false;
  const run = /* @__PURE__ */ __name(async (name, step) => {
    try {
      const { removed, full } = await drain(policy, step);
      backlog ||= full;
      return removed;
    } catch (err) {
      failed.push(name);
      firstError ??= err;
      return 0;
    }
  }, "run");
  let shards = [];
  try {
    shards = databases2 ?? cronShards(env, now, policy);
  } catch (err) {
    failed.push("tid_shards");
    firstError ??= err;
  }
  const stores = pruned();
  const perShard = await inPool(shards, async (shard) => {
    const counts = {
      tids_deleted: 0,
      tid_fences_deleted: 0,
      events_delivered_pruned: 0,
      events_undelivered_pruned: 0,
      event_attempts_pruned: 0,
      event_slots_emptied: 0,
      erasures_deleted: 0
    };
    for (const { store: store2, steps } of stores) {
      if (!livesIn(store2, shard.binding)) continue;
      for (const step of steps)
        counts[step.counts] += await run(`${step.name}:${shard.binding}`, (limit) => step.batch(shard.db, policy, limit, now, env));
    }
    return { binding: shard.binding, counts };
  });
  const sum = /* @__PURE__ */ __name((name) => perShard.reduce((total, shard) => total + shard.counts[name], 0), "sum");
  const report = {
    tids_deleted: sum("tids_deleted"),
    tid_fences_deleted: sum("tid_fences_deleted"),
    events_delivered_pruned: sum("events_delivered_pruned"),
    events_undelivered_pruned: sum("events_undelivered_pruned"),
    event_attempts_pruned: sum("event_attempts_pruned"),
    event_slots_emptied: sum("event_slots_emptied"),
    erasures_deleted: sum("erasures_deleted"),
    backlog,
    tid_shards: Object.fromEntries(perShard.map(({ binding, counts }) => [binding, { deleted: counts.tids_deleted }]))
  };
  log(failed.length ? "error" : "info", "retention_run", {
    now,
    ...report,
    bound_per_step: policy.batchSize * policy.rounds,
    duration_ms: Date.now() - started,
    ...failed.length ? { failed_steps: failed, error: String(firstError) } : {}
  });
  if (failed.length) throw new Error(`Retention steps failed: ${failed.join(", ")}`, { cause: firstError });
  return report;
}
__name(runRetention, "runRetention");

// src/audit/writer.ts
import { DurableObject as DurableObject2 } from "cloudflare:workers";
var FLUSH_AT = 2e3;
var FLUSH_MAX = 1e4;
var ROW_ENTRIES = 32;
var GROUP_MS = 100;
var AuditWriter = class extends DurableObject2 {
  static {
    __name(this, "AuditWriter");
  }
  #sql;
  /** The alarm this incarnation set (undefined: not known yet). */
  #alarmAt;
  #busy = Promise.resolve();
  /** The waiting row appends add to, as stored (null: the next append starts one; a flush closes it). */
  #open = null;
  /** The ids of the entries waiting (null: not read since the last flush). */
  #waiting = null;
  /** The ids of the entries this incarnation's last flush put. */
  #flushed = /* @__PURE__ */ new Set();
  /** Appends waiting for their row write (a record's, grouped: append), and when it comes. */
  #queue = [];
  #timer = null;
  /** The ids of the entries queued, with the promise of their write. */
  #queuedIds = /* @__PURE__ */ new Map();
  constructor(ctx, env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS pending (n INTEGER PRIMARY KEY AUTOINCREMENT, entries TEXT NOT NULL, count INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS head (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), chain TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, key TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS erased (user TEXT PRIMARY KEY, until INTEGER NOT NULL);`);
  }
  /**
   * Erasure (rule 10), before the trail's eraser flushes and walks the batches: from now until `until`, an
   * appended entry of `user` that holds personal values is kept with them masked. An export that was on its
   * way while the user's records were erased (it left with the values) then lands masked, after the walk that
   * would have missed it.
   */
  async forget(user, until) {
    this.#sql.exec("DELETE FROM erased WHERE until <= ?", Date.now());
    this.#sql.exec("INSERT INTO erased (user, until) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET until = excluded.until", user, until);
  }
  /** The entry as kept: masked when its user is being erased (forget). */
  #masked(line) {
    if (!line.user || !line.detail || !holdsPersonalValues(line)) return line;
    const erased = this.#sql.exec("SELECT 1 FROM erased WHERE user = ? AND until > ?", line.user, Date.now()).toArray().length > 0;
    return erased ? { ...line, detail: { ...erasePersonal(line.detail), erased: true } } : line;
  }
  /**
   * Keeps these entries for the chain's next batch; answers once they are durable. `group` (a record's export,
   * which no caller waits for): written with the other appends of the next GROUP_MS in one row write, so
   * at 10M payments a day a writer writes a row per several appends; without it (a gateway call, a staff
   * action: their answer waits), written at once, with whatever waits to be grouped. A release before reads
   * no third argument and writes each at once.
   */
  async append(chain, entries, options) {
    const waiting = this.#waitingIds();
    const queued = [];
    const fresh = entries.filter((entry, i) => {
      if (waiting.has(entry.id) || this.#flushed.has(entry.id) || entries.findIndex((other) => other.id === entry.id) !== i) return false;
      const first = this.#queuedIds.get(entry.id);
      if (first) queued.push(first);
      return !first;
    });
    const done = fresh.length === 0 ? null : this.#enqueue(chain, fresh.map(cleanLine));
    if (done && options?.group !== true) void this.#commit();
    else if (done) this.#timer ??= setTimeout(() => void this.#commit(), GROUP_MS);
    await Promise.all([done, ...queued]);
  }
  /** Queues entries for the next write: the promise settles once they are durable (or their write failed). */
  #enqueue(chain, clean) {
    let settle;
    const done = new Promise((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.#queue.push({ chain, entries: clean, ...settle });
    for (const entry of clean) this.#queuedIds.set(entry.id, done);
    return done;
  }
  /** Writes every queued append (a row write a chain), arms the flush, and answers them. */
  async #commit() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const items = this.#queue.splice(0);
    if (items.length === 0) return;
    for (const item of items) item.entries = item.entries.map((entry) => this.#masked(entry));
    const all = items.flatMap((item) => item.entries);
    try {
      for (const chain of new Set(items.map((item) => item.chain)))
        this.#write(
          chain,
          items.filter((item) => item.chain === chain).flatMap((item) => item.entries)
        );
      const waiting = this.#waitingIds();
      for (const entry of all) waiting.add(entry.id);
      const count = this.#sql.exec("SELECT coalesce(sum(count), 0) AS n FROM pending").one().n;
      const oldest = Math.min(Date.now(), ...all.map((entry) => entry.at));
      await this.#arm(count >= FLUSH_AT ? Date.now() : oldest + flushMs(this.env));
      for (const item of items) item.resolve();
    } catch (err) {
      for (const item of items) item.reject(err);
    } finally {
      for (const entry of all) this.#queuedIds.delete(entry.id);
    }
  }
  /** One row write: these entries added to the waiting row (up to ROW_ENTRIES), or a row of their own. */
  #write(chain, clean) {
    const open = this.#open;
    const shared = open !== null && open.chain === chain && open.count + clean.length <= ROW_ENTRIES ? open : null;
    if (shared) {
      const text2 = `${shared.text.slice(0, -2)},${JSON.stringify(clean).slice(1)}}`;
      const count = shared.count + clean.length;
      const written = this.#sql.exec("UPDATE pending SET entries = ?, count = ? WHERE n = ?", text2, count, shared.n).rowsWritten;
      if (written > 0) Object.assign(shared, { text: text2, count });
      else this.#open = null;
    }
    if (!shared || this.#open === null) {
      const text2 = JSON.stringify({ chain, entries: clean });
      const n = this.#sql.exec("INSERT INTO pending (entries, count) VALUES (?, ?) RETURNING n", text2, clean.length).one().n;
      this.#open = { n, chain, text: text2, count: clean.length };
    }
  }
  /** The ids of the entries waiting, read from storage once after each flush. */
  #waitingIds() {
    if (this.#waiting) return this.#waiting;
    const ids = /* @__PURE__ */ new Set();
    for (const row of this.#sql.exec("SELECT entries FROM pending"))
      for (const entry of JSON.parse(row.entries).entries) ids.add(entry.id);
    this.#waiting = ids;
    return ids;
  }
  async alarm() {
    this.#alarmAt = null;
    await this.flush();
  }
  /** Writes every waiting entry to R2 now (the alarm's work; the eraser's and tests', to see a batch at once), those queued for their row write too. */
  async flush() {
    await this.#commit();
    return this.#serially(() => this.#flush());
  }
  /** The chain's head as this writer keeps it, or null before its first batch. */
  async head() {
    return this.#head();
  }
  /**
   * Erasure (rule 10): masks `user`'s personal values in the batch at `key`
   * (of this writer's chain), after recording the rewrite in the chain.
   * False when the batch holds nothing of theirs to mask (or is gone).
   */
  rewrite(key, user) {
    return this.#serially(async () => {
      const place = parseBatchKey(key);
      const object2 = await this.env.AUDIT.get(key);
      if (!place || !object2) return false;
      const text2 = await object2.text();
      const { header: header2, entries } = parseBatch(text2);
      if (!header2) return false;
      let changed = false;
      const masked = entries.map((entry) => {
        if (entry.user !== user || !entry.detail || !holdsPersonalValues(entry)) return entry;
        const detail = erasePersonal(entry.detail);
        if (JSON.stringify(detail) === JSON.stringify(entry.detail)) return entry;
        changed = true;
        return { ...entry, detail: { ...detail, erased: true } };
      });
      if (!changed) return false;
      const next = formatBatch(header2, masked);
      const rewrite = {
        key,
        seq: place.seq,
        old: await sha256Hex(text2),
        new: await sha256Hex(next),
        reason: "erasure",
        user_hash: await sha256Hex(user)
      };
      await this.#flush({ rewrite, chain: place.chain });
      await this.env.AUDIT.put(key, next, { customMetadata: batchMetadata(masked), httpMetadata: { contentType: "application/x-ndjson" } });
      log("info", "audit_batch_rewritten", { key, reason: "erasure" });
      return true;
    });
  }
  #serially(work) {
    const run = this.#busy.then(work, work);
    this.#busy = run.catch(() => void 0);
    return run;
  }
  #head() {
    return this.#sql.exec("SELECT chain, seq, hash, key FROM head").toArray()[0] ?? null;
  }
  async #arm(at) {
    if (this.#alarmAt === void 0) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }
  /** One flush: the waiting entries as batches (and a rewrite's record, when one is given), then the head. */
  async #flush(extra) {
    this.#open = null;
    const rows = this.#sql.exec("SELECT n, entries, count FROM pending ORDER BY n").toArray();
    let taken = 0;
    let last = 0;
    let chain = extra?.chain ?? null;
    const entries = [];
    for (const row of rows) {
      if (taken > 0 && taken + row.count > FLUSH_MAX) break;
      const parsed = JSON.parse(row.entries);
      chain ??= parsed.chain;
      entries.push(...parsed.entries);
      taken += row.count;
      last = row.n;
    }
    if (chain === null) return 0;
    entries.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const byHour = /* @__PURE__ */ new Map();
    for (const entry of entries) {
      const hour = hourOf(entry.at);
      byHour.set(hour, [...byHour.get(hour) ?? [], entry]);
    }
    let head2 = this.#head() ?? { chain, seq: 0, hash: GENESIS, key: "" };
    const now = Date.now();
    const batches = [...byHour].map(([hour, list]) => ({
      header: { chain, seq: 0, prev: "", hour, count: list.length, written_at: now },
      entries: list
    }));
    if (extra)
      batches.push({ header: { chain, seq: 0, prev: "", hour: hourOf(now), count: 0, written_at: now, rewrite: extra.rewrite }, entries: [] });
    for (const batch of batches) {
      const header2 = { ...batch.header, seq: head2.seq + 1, prev: head2.hash };
      const text2 = formatBatch(header2, batch.entries);
      const key = batchKey(header2.hour, chain, header2.seq);
      await this.env.AUDIT.put(key, text2, { customMetadata: batchMetadata(batch.entries), httpMetadata: { contentType: "application/x-ndjson" } });
      head2 = { chain, seq: header2.seq, hash: await sha256Hex(text2), key };
      await this.env.AUDIT.put(headKey(chain), JSON.stringify(head2), { httpMetadata: { contentType: "application/json" } });
    }
    const moved = head2;
    this.ctx.storage.transactionSync(() => {
      this.#sql.exec(
        "INSERT OR REPLACE INTO head (singleton, chain, seq, hash, key) VALUES (1, ?, ?, ?, ?)",
        moved.chain,
        moved.seq,
        moved.hash,
        moved.key
      );
      if (last > 0) this.#sql.exec("DELETE FROM pending WHERE n <= ?", last);
    });
    this.#waiting = null;
    if (entries.length > 0) this.#flushed = new Set(entries.map((entry) => entry.id));
    if (taken < rows.reduce((sum, row) => sum + row.count, 0)) await this.#arm(Date.now());
    return taken;
  }
};

// src/events/pager.ts
import { DurableObject as DurableObject3 } from "cloudflare:workers";
var PAGE_EVENTS = 50;
var PAGE_BYTES = 6e4;
var PAGE_WAIT_MS = 1e3;
var pagedBytes = /* @__PURE__ */ __name((message2) => new TextEncoder().encode(JSON.stringify(message2)).length + 1, "pagedBytes");
var EventPager = class extends DurableObject3 {
  static {
    __name(this, "EventPager");
  }
  /** The page being filled. */
  #page = [];
  #bytes = 0;
  /** Sends the page PAGE_WAIT_MS after its first event (null: the page is empty). */
  #timer = null;
  /**
   * Takes a drain's messages into the page and answers at once: each is sent
   * within PAGE_WAIT_MS, in a page that fills up (by count or bytes) sooner.
   * An event that would take the page past PAGE_BYTES starts the next one.
   */
  async add(messages) {
    for (const message2 of messages) {
      const bytes2 = pagedBytes(message2);
      if (this.#page.length > 0 && this.#bytes + bytes2 > PAGE_BYTES) this.#send();
      this.#page.push(message2);
      this.#bytes += bytes2;
      if (this.#page.length >= PAGE_EVENTS || this.#bytes >= PAGE_BYTES) this.#send();
    }
    if (this.#page.length > 0) this.#timer ??= setTimeout(() => this.#send(), PAGE_WAIT_MS);
  }
  /** Sends the page as one queue message, and starts an empty one. A send that fails is left to the sweep. */
  #send() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const page2 = this.#page;
    this.#page = [];
    this.#bytes = 0;
    if (page2.length === 0) return;
    const body = { page: page2 };
    const sent = this.env.EVENTS.send(body, { contentType: "json" }).catch((err) => {
      log("warn", "event_page_send_failed", {
        events: page2.length,
        ids: page2.map((message2) => message2.id).join(" "),
        error: err instanceof Error ? err.message : String(err)
      });
    });
    this.ctx.waitUntil(sent);
  }
};

// src/record/receipt-object.ts
import { DurableObject as DurableObject4 } from "cloudflare:workers";

// src/record/answers.ts
var KeptAnswers = class {
  static {
    __name(this, "KeptAnswers");
  }
  #store;
  #keys;
  constructor(host) {
    this.#store = host.store;
    this.#keys = host.keys;
  }
  /**
   * Keys first: a repeat whose key has a kept answer gets it again, with no
   * upstream call, before the one-at-a-time check, so a follow-up read or an
   * alarm under way never turns it into operation_in_progress; only a repeat
   * of a request still in flight (its key open, no answer yet) waits its
   * turn. Null when there is no kept answer for the caller's key on a record
   * it may see. Audited as any replay is.
   */
  replay(operation2, op) {
    if (!op.idempotency) return null;
    const rec = this.#store.load();
    if (!rec || !mayAccess(op.caller, rec.owner)) return null;
    const actor = ownerOf(op.caller);
    const seen = this.#keys.lookup(actor, operation2, op.idempotency);
    if (seen.kind !== "replay") return null;
    this.#store.trail.add({ at: clock.now(), op: operation2, actor, request_id: op.requestId, outcome: "ok" });
    return { ok: true, value: seen.answer.body, replayed: seen.answer };
  }
  /** What the request's key says of it, under the lock: new when it brought none. */
  lookup(operation2, op) {
    return op.idempotency ? this.#keys.lookup(ownerOf(op.caller), operation2, op.idempotency) : { kind: "new" };
  }
  /** The key is kept open in the note's commit: a repeat while the outcome is unknown asks the upstream, never calls again. */
  open(operation2, op) {
    if (op.idempotency) this.#keys.open(ownerOf(op.caller), operation2, op.idempotency, op.requestId);
  }
  /**
   * The answer a key's request got, kept when the gateway acted (lifecycle's
   * keepsAnswer), forgotten when it did not, so that a corrected or later
   * request may use the key again. In the outcome's commit.
   */
  keep(operation2, op, outcome) {
    if (!op.idempotency) return outcome;
    const actor = ownerOf(op.caller);
    const answer = outcome.ok ? { status: 200, body: outcome.value, headers: {} } : errorAnswer(outcome.error, op.requestId, op.language ?? "en");
    if (keepsAnswer(answer.status, outcome.ok ? void 0 : outcome.error.code))
      this.#keys.answer(actor, operation2, op.idempotency, op.requestId, answer);
    else this.#keys.forget(actor, operation2, op.idempotency);
    return outcome;
  }
  /**
   * The first request with this key met an unknown outcome (a timeout, a
   * lost connection, a crash before its answer). After the move's look at
   * the upstream (which settled the lost note, as the reconciler would), the
   * repeat answers what it shows: the record, when the operation happened;
   * else that nothing happened and the key is spent. Never a second call.
   */
  afterUnknown(operation2, op) {
    const rec = this.#store.current;
    const shown = repeatAnswer(operation2, upstreamPhase(rec.state));
    const outcome = shown === "done" ? { ok: true, value: rec.body } : shown === "unknown_send" ? fail(
      "upstream_error",
      "The OTP send with this Idempotency-Key met an unknown outcome: an SMS may have been sent. Use it, or authorize again with a new key once its wait has passed."
    ) : fail(
      "upstream_error",
      `The ${operation2} with this Idempotency-Key did not happen: the payment service shows nothing done. Send it again with a new key.`
    );
    const answer = outcome.ok ? { status: 200, body: outcome.value, headers: {} } : errorAnswer(outcome.error, op.requestId, op.language ?? "en");
    this.#keys.answer(ownerOf(op.caller), operation2, op.idempotency, op.requestId, answer);
    return { ...outcome, replayed: answer };
  }
};

// src/rules/schedule.ts
var LATE_READ_SCHEDULES = {
  production: [6e4, 6e5, 36e5, 864e5],
  development: [15e3, 35e3, 7e4, 11e4]
};
var lateReadSchedule = /* @__PURE__ */ __name((environment) => environment === "development" ? LATE_READ_SCHEDULES.development : LATE_READ_SCHEDULES.production, "lateReadSchedule");
var STATE_CHANGING_CALLS = /* @__PURE__ */ new Set(["pay", "hold-confirm", "cancel"]);
function lateReadAt(suspect, schedule) {
  if (suspect.since === 0) return null;
  const offset = schedule[suspect.reads];
  return offset === void 0 ? null : suspect.since + offset;
}
__name(lateReadAt, "lateReadAt");
function lateReadsDoneAt(suspect, schedule, now) {
  let reads = suspect.reads;
  while (suspect.since !== 0 && reads < schedule.length && suspect.since + schedule[reads] <= now) reads++;
  return reads >= schedule.length ? { since: 0, reads: 0 } : { since: suspect.since, reads };
}
__name(lateReadsDoneAt, "lateReadsDoneAt");
function fiscalReadAt(watch, schedule) {
  const offset = schedule[watch.reads];
  return offset === void 0 ? null : watch.since + offset;
}
__name(fiscalReadAt, "fiscalReadAt");
function fiscalReadsDoneAt(watch, schedule, now) {
  let reads = watch.reads;
  while (reads < schedule.length && watch.since + schedule[reads] <= now) reads++;
  return reads;
}
__name(fiscalReadsDoneAt, "fiscalReadsDoneAt");
function backoffMs(attempts) {
  return Math.min(6e4, 1e3 * 2 ** Math.max(0, attempts));
}
__name(backoffMs, "backoffMs");
var needsSettling = /* @__PURE__ */ __name((facts) => settlingAt({ ...facts, lateReadAt: null }, 0) !== null, "needsSettling");
function nextReconcileAt(facts, now) {
  const settling = settlingAt(facts, now);
  if (facts.lateReadAt === null) return settling;
  const late = Math.max(facts.lateReadAt, facts.attempts > 0 ? now + backoffMs(facts.attempts) : 0);
  return settling === null ? late : Math.min(settling, late);
}
__name(nextReconcileAt, "nextReconcileAt");
function settlingAt(facts, now) {
  if (facts.phase === "in_flight") {
    return Math.max(facts.pendingSince + facts.upstreamTimeoutMs + 1e3, now + backoffMs(facts.attempts));
  }
  if (facts.exhaustionCancelPending) return now + backoffMs(facts.attempts);
  if (facts.phase === "awaiting_supplier") return now + Math.max(5e3, backoffMs(facts.attempts));
  return null;
}
__name(settlingAt, "settlingAt");
function recordDeletionAt(facts, retentionMs) {
  if (!isFinal(facts) || facts.pending || facts.suspect || facts.unsentEvents || facts.fiscalPending || facts.listingOwed) return null;
  return facts.changedAt + retentionMs;
}
__name(recordDeletionAt, "recordDeletionAt");

// src/record/reconciler.ts
var upstreamCancelsOf = /* @__PURE__ */ __name((rec) => upstreamCancels({ kind: rec.kind, qrMerchant: rec.qr_merchant === 1, cancelRefused: rec.edge_closed === 1 }), "upstreamCancelsOf");
var guessCountsOf = /* @__PURE__ */ __name((rec) => ({ wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps }), "guessCountsOf");
var closedAtEdgeOf = /* @__PURE__ */ __name((rec) => closedAtEdge({ guesses: guessesOf(guessCountsOf(rec)), expired: rec.expiry !== null, upstreamCancels: upstreamCancelsOf(rec) }), "closedAtEdgeOf");
var callerKindOf = /* @__PURE__ */ __name((actor) => actor?.startsWith("partner:") ? "partner" : actor === "gateway" ? "gateway" : "user", "callerKindOf");
var notedOp = /* @__PURE__ */ __name((op) => op === "expiry-cancel" || op === "exhaustion-cancel" ? "cancel" : op, "notedOp");
var Reconciler = class {
  static {
    __name(this, "Reconciler");
  }
  #parts;
  /** Reconciliation attempts that failed in a row (the alarm's backoff): this part's column. */
  #attempts;
  constructor(parts2) {
    this.#parts = parts2;
    this.#attempts = parts2.store.slice("reconciler", ["reconcile_attempts"]);
  }
  phase(rec = this.#parts.store.current) {
    return phaseOf({ state: rec.state, pending: rec.pending_op !== null, guesses: this.#parts.ledger.guesses(rec), expired: rec.expiry !== null });
  }
  /** The facts of the record the lifecycle table decides on, for a caller of this kind. */
  context(caller, fresh, otpMissing = false, rec = this.#parts.store.current) {
    return {
      kind: rec.kind,
      caller,
      isHold: rec.is_hold === 1,
      qrMerchant: rec.qr_merchant === 1,
      holdEnabled: this.#parts.holdEnabled,
      fresh,
      suspect: this.#parts.lateReads.isSuspect(rec),
      otpMissing,
      guesses: guessCountsOf(rec),
      closedAtEdge: closedAtEdgeOf(rec)
    };
  }
  /**
   * The lifecycle table's decision on `operation` for `caller`: what a request
   * gets, and what every step the gateway takes on someone's behalf gets too
   * before it calls the upstream (a lost cancel completed, the exhaustion
   * cancel, in the phase the upstream showed).
   */
  decide(operation2, caller, fresh, options = {}) {
    const ctx = this.context(caller, fresh, options.otpMissing);
    return decide(operation2, options.phase ?? this.phase(), options.expiring ? { ...ctx, expiring: options.expiring } : ctx);
  }
  /** The table asks for a fresh look at the upstream before it decides (lifecycle's asksForLook). */
  asksForLook(operation2, caller, options = {}) {
    return asksForLook(operation2, this.phase(), this.context(caller, false, options.otpMissing));
  }
  /** The refusal of a record whose guesses ran out, whole (the table's). */
  exhausted(caller) {
    const decision = this.decide("pay", caller, true, { phase: "exhausted" });
    if (decision.do === "refuse") return { code: decision.code, message: decision.message };
    const rec = this.#parts.store.current;
    return { code: "otp_attempts_exhausted", message: exhaustedMessage(rec.kind, guessCountsOf(rec), closedAtEdgeOf(rec)) };
  }
  /** Three failed guesses on a receipt the upstream cancels, still unpaid upstream: the gateway's own cancel is owed. */
  exhaustionCancelPending(rec = this.#parts.store.current) {
    return exhaustionCancelPending({
      guesses: this.#parts.ledger.guesses(rec),
      state: rec.state,
      upstreamCancels: upstreamCancelsOf(rec),
      suspect: this.#parts.lateReads.isSuspect(rec)
    });
  }
  /** Only the upstream can settle the record now (lifecycle's needsSettling). */
  needsReconcile(rec) {
    return needsSettling(this.#facts(rec));
  }
  /** When the alarm should next look at the upstream, or null. */
  nextAt(rec, now) {
    return nextReconcileAt({ ...this.#facts(rec), lateReadAt: this.#parts.lateReads.dueAt(rec) }, now);
  }
  #facts(rec) {
    return {
      phase: this.phase(rec),
      exhaustionCancelPending: this.exhaustionCancelPending(rec),
      attempts: rec.reconcile_attempts,
      pendingSince: rec.pending_since,
      upstreamTimeoutMs: this.#parts.upstreamTimeoutMs
    };
  }
  /**
   * Asks the upstream how the record stands and stores it. A note of a call
   * whose outcome was lost is settled from what the upstream shows: an OTP
   * sent in it counts as an unconfirmed guess unless the record got paid, an
   * authorize may have sent an SMS, and a lost call that could change the
   * state leaves the record suspect. Answers the cancel whose answer was
   * lost, if the note was one: the move completes it, or refuses it.
   */
  async look(upstream, requestId2) {
    const { store: store2, ledger, recorder, writeAhead, lateReads } = this.#parts;
    const rec = store2.current;
    keepLine();
    const result = await kindNamed(rec.kind).read(upstream, rec.id);
    if (!result.ok) {
      this.#attempts.update({ reconcile_attempts: rec.reconcile_attempts + 1 });
      metric(this.#parts.env, "reconciliation", { operation: rec.kind, outcome: "failed", attempts: rec.reconcile_attempts + 1 });
      log("warn", "reconcile_failed", {
        id: rec.id,
        kind: rec.kind,
        pending_op: rec.pending_op,
        attempts: rec.reconcile_attempts + 1,
        code: result.failure.code,
        upstream_code: result.failure.upstream_code
      });
      return { ok: false, error: result.failure };
    }
    const noted = store2.current;
    const op = notedOp(noted.pending_op);
    const lost = op === "cancel" ? { actor: noted.pending_actor, requestId: noted.pending_request_id, since: noted.pending_since } : null;
    store2.change(() => {
      if (noted.pending_op !== null) {
        const paid = isPaid(kindNamed(rec.kind).stateOf(result.value));
        if (noted.pending_otp === 1) ledger.count(paid ? "accepted" : "unconfirmed", requestId2);
        if (noted.pending_op === "authorize") ledger.countSend(void 0);
        if (op !== null && STATE_CHANGING_CALLS.has(op)) lateReads.suspect(noted.pending_since, noted.pending_otp === 1 && !paid);
        writeAhead.clear();
      }
      recorder.apply(result.value, requestId2);
    });
    metric(this.#parts.env, "reconciliation", { operation: rec.kind, outcome: "ok", attempts: rec.reconcile_attempts });
    const since = store2.current.suspect_since;
    if (since !== 0 && since !== noted.suspect_since) metric(this.#parts.env, "record_suspect", { operation: rec.kind });
    return { ok: true, value: lost };
  }
  /**
   * After a look and what it left owed: still waiting (57, a cancel not
   * through yet, or `owed`: an expiry's cancel the upstream was too busy for)
   * backs off further; settled starts afresh.
   */
  countAttempt(attemptsBefore, owed = false) {
    const { store: store2 } = this.#parts;
    const attempts = owed || this.needsReconcile(store2.current) ? attemptsBefore + 1 : 0;
    this.#attempts.update({ reconcile_attempts: attempts });
  }
  /**
   * check-id's plain read of a record nothing is owed for: the upstream's
   * answer laid over the stored body, stored only when it says something new
   * (or completes a late read, or a fiscal read, due), so the usual read
   * waits for no commit.
   */
  async read(upstream, requestId2, busy2) {
    const { store: store2, recorder, lateReads, fiscal } = this.#parts;
    const rec = store2.current;
    const version = store2.version;
    const result = await kindNamed(rec.kind).read(upstream, rec.id);
    if (!result.ok) return { ok: false, error: result.failure };
    const body = recorder.merged(result.value);
    if (version === store2.version && !busy2() && (body !== rec.body || lateReads.isDue(rec, clock.now()) || fiscal.isDue(rec, clock.now()))) {
      store2.change(() => recorder.apply(result.value, requestId2, body));
    }
    return { ok: true, value: body };
  }
};

// src/record/specs.ts
async function callOf(spec, upstream, rec, input, otp) {
  const { operation: operation2 } = spec;
  if (spec.settles === "send") return { settles: "send", operation: operation2, result: await spec.call(upstream, rec, input, otp) };
  return { settles: "state", operation: operation2, result: await spec.call(upstream, rec, input, otp) };
}
__name(callOf, "callOf");
var AUTHORIZE = {
  operation: "authorize",
  call: /* @__PURE__ */ __name((upstream, rec, input) => upstream.authorize(rec.id, input.card), "call"),
  settles: "send",
  // Every send counts for the user and the card (its number's or its token's fingerprint); a number is also a use of it.
  risk: /* @__PURE__ */ __name(({ card }) => ({ card, otpSend: true }), "risk")
};
var PAY = {
  operation: "pay",
  otp: /* @__PURE__ */ __name((rec, input) => otpToSend("number" in input.card || rec.is_verify === 1, input.otp), "otp"),
  call: /* @__PURE__ */ __name((upstream, rec, { card }, otp) => "number" in card ? upstream.anonymousPay(rec.id, card, otp ?? "") : upstream.pay(rec.id, card, otp), "call"),
  settles: "state",
  // A card number is a use of it; a token pay sends no OTP and names no number.
  risk: /* @__PURE__ */ __name(({ card }) => "number" in card ? { card } : void 0, "risk")
};
var PAY_TRANSFER = {
  operation: "pay",
  otp: /* @__PURE__ */ __name((rec, input) => otpToSend(rec.is_verify === 1, input.otp), "otp"),
  call: /* @__PURE__ */ __name((upstream, rec, _input, otp) => upstream.payTransfer(rec.id, otp), "call"),
  settles: "state"
};
var HOLD_CONFIRM = {
  operation: "hold-confirm",
  call: /* @__PURE__ */ __name((upstream, rec) => upstream.holdConfirm(rec.id), "call"),
  settles: "state"
};
var CANCEL = {
  operation: "cancel",
  call: /* @__PURE__ */ __name((upstream, rec, input) => upstream.cancel(rec.id, input.reason, input.cancelledBy), "call"),
  settles: "state"
};

// src/record/settle.ts
var GATEWAY2 = "gateway";
var LOST_CANCEL_REASON = "a cancel whose answer was lost, completed by the gateway";
var EXHAUSTION_CANCEL_REASON = `${GUESS_LIMIT_WORD.toLowerCase()} failed OTP guesses`;
var EXPIRY_CANCEL_REASON = {
  expired: "expired unpaid",
  hold_expired: "hold not confirmed in time"
};
var Settlement = class {
  static {
    __name(this, "Settlement");
  }
  #parts;
  /** The name the gateway's own cancels tell the upstream (GATEWAY_CANCELLED_BY). */
  #cancelledBy;
  constructor(parts2, cancelledBy) {
    this.#parts = parts2;
    this.#cancelledBy = cancelledBy;
  }
  /**
   * Settle and audit in one change: the note cleared, the OTP's verdict
   * counted (the third failed guess exhausts the record, with its event),
   * the record and the event its change is, and the request's entry in the
   * trail, given as data (`audit`) and completed with the outcome: rule 2's
   * third failed guess as the otp_attempts_exhausted it is answered. An
   * unknown outcome of a state-changing call stores nothing else: the note
   * stays for the reconciler.
   */
  settle(called, withOtp, requestId2, audit2) {
    const { store: store2, reconciler } = this.#parts;
    return store2.change(() => {
      const settled = this.#settledOrKept(called, withOtp, requestId2);
      if (!audit2) return settled;
      const exhausted = withOtp && reconciler.phase() === "exhausted";
      store2.trail.add({ ...audit2, at: clock.now(), outcome: exhausted ? "otp_attempts_exhausted" : settled.ok ? "ok" : settled.error.code });
      return settled;
    });
  }
  #settledOrKept(called, withOtp, requestId2) {
    const { result } = called;
    if (!result.ok && result.outcome === "unknown" && called.settles === "state") return { ok: false, error: result.failure, verdict: null };
    const verdict = withOtp ? otpVerdictOf(result.ok ? result : { ...result, code: result.failure.code }) : null;
    return this.#settled(called, verdict, requestId2);
  }
  #settled(called, verdict, requestId2) {
    const { store: store2, writeAhead, ledger, recorder } = this.#parts;
    writeAhead.clear();
    if (called.settles === "send" && (called.result.ok || called.result.outcome === "unknown")) {
      ledger.countSend(called.result.ok ? called.result.value.wait : void 0);
    }
    if (verdict) ledger.count(verdict, requestId2, !called.result.ok && called.result.failure.code === "otp_attempts_exhausted");
    if (!called.result.ok) {
      recorder.applyAfter(called.result, requestId2);
      return { ok: false, error: called.result.failure, verdict };
    }
    if (called.settles === "send") return { ok: true, value: recorder.answerOf(called.result.value) };
    recorder.apply(called.result.value, requestId2);
    return { ok: true, value: recorder.answerOf({ ...called.result.value, tid: store2.current.tid }) };
  }
  /** The answer to a refused OTP: how many guesses are left. */
  explained(error, verdict) {
    const { ledger } = this.#parts;
    if (error.code === "otp_invalid") {
      const { upstream_code } = error;
      return { code: "otp_invalid", message: "The OTP is wrong.", attempts_left: ledger.attemptsLeft(), ...upstream_code ? { upstream_code } : {} };
    }
    if (verdict === "unconfirmed") return { ...error, attempts_left: ledger.attemptsLeft() };
    return error;
  }
  /**
   * The gateway's own cancel, one path for its three reasons (rules 2, 8
   * and 12), taken after a look at the upstream, as a request's money move
   * is, in straight steps:
   *
   *   load -> what is owed, and for whom (a caller's cancel whose answer was
   *   lost, for that caller; rule 2's exhaustion cancel, or rule 12's expiry,
   *   for `gateway`) -> decide once (the lifecycle table, in the phase the
   *   look showed) -> note and call (rule 8's write-ahead note under
   *   `cancel`, so a lost one is suspect and read late like a caller's) ->
   *   settle and audit in one change -> finish.
   *
   * Every reason meets an answer the same way. Unknown: the note stays for
   * the reconciler's look (which then owes the same cancel again, or finds
   * it done). Busy (the upstream did nothing): the record is as it was
   * before the call, the lost note included, and the alarm tries again with
   * backoff. A refusal for good of the gateway's own cancel closes the
   * record at the edge. Null when no cancel is owed.
   */
  async gatewayCancel(upstream, requestId2, lost, ended) {
    const { store: store2, reconciler, expiry, writeAhead, ledger } = this.#parts;
    const rec = store2.current;
    if (rec.pending_op) return null;
    const found = this.#owed(lost);
    if (!found) return null;
    const owed = { ...found, ended };
    const decision = owed.ends === "cancel" ? reconciler.decide("cancel", owed.caller, true, { phase: upstreamPhase(rec.state), expiring: owed.expiring ?? void 0 }) : null;
    if (decision?.do !== "call") {
      return store2.change(() => {
        if (owed.expiring) {
          expiry.closeAtEdge(owed.expiring, requestId2, false);
          return this.#audited(owed, requestId2, { outcome: "edge" });
        }
        const outcome = decision?.do === "refuse" ? decision.code : "operation_in_progress";
        log("warn", "gateway_cancel_refused", { id: rec.id, kind: rec.kind, state: rec.state, code: outcome, request_id: owed.lost?.requestId });
        return this.#audited(owed, requestId2, { outcome: "refused", code: outcome });
      });
    }
    const note2 = { op: CANCEL.operation, actor: owed.actor, requestId: requestId2, withOtp: false };
    await writeAhead.note(note2, owed.expiring ? () => expiry.mark(owed.expiring) : void 0);
    const result = await CANCEL.call(upstream, store2.current, owed.words, void 0);
    if (!result.ok && result.outcome === "unknown") {
      return store2.change(() => this.#audited(owed, requestId2, { outcome: "unknown", failure: result.failure }));
    }
    return store2.change(() => {
      if (!result.ok && upstreamBusy(result.failure.code)) {
        writeAhead.clear();
        if (owed.lost) writeAhead.restore(owed.lost);
        if (owed.expiring) expiry.unmark();
        return this.#audited(owed, requestId2, { outcome: "retry", failure: result.failure });
      }
      if (!result.ok && owed.expiring) expiry.unmark();
      this.settle({ settles: CANCEL.settles, operation: CANCEL.operation, result }, false, requestId2);
      if (result.ok) return this.#audited(owed, requestId2, { outcome: "ended" });
      if (owed.caller !== GATEWAY2) return this.#audited(owed, requestId2, { outcome: "refused", code: result.failure.code });
      const after = store2.current;
      const stillOwed = owed.expiring ? expiryRuleOf(after.kind, after.state) !== null : reconciler.exhaustionCancelPending(after);
      if (!stillOwed) return this.#audited(owed, requestId2, { outcome: "ended" });
      if (owed.expiring) expiry.closeAtEdge(owed.expiring, requestId2, true);
      else ledger.cancelRefused();
      log("warn", "gateway_cancel_refused", { id: rec.id, kind: rec.kind, upstream_code: result.failure.upstream_code, code: result.failure.code });
      return this.#audited(owed, requestId2, { outcome: "edge" });
    });
  }
  /**
   * What cancel the record owes now, and for whom (after a look): a
   * caller's cancel whose answer was lost, for that caller (a user's never
   * refunds); else the gateway's own, for rule 2's exhausted guesses or
   * rule 12's expiry. A lost cancel of the gateway's own is owed again by
   * its reason, not by its note: by the guesses, or by the expiry decided,
   * whose mark is cleared when the upstream shows a state it does not end
   * (a late pay held or paid), so a hold is released later as
   * `hold_expired` and a refund is never announced as an expiry.
   */
  #owed(lost) {
    const { store: store2, reconciler, expiry } = this.#parts;
    const rec = store2.current;
    if (lost && lost.actor !== GATEWAY2 && rec.state !== STATE.cancelled) {
      const caller = callerKindOf(lost.actor);
      return {
        caller,
        actor: lost.actor,
        lost,
        ends: "cancel",
        expiring: null,
        words: { reason: LOST_CANCEL_REASON, cancelledBy: this.#cancelledBy }
      };
    }
    const gateway = { caller: GATEWAY2, actor: GATEWAY2, lost: null };
    if (reconciler.exhaustionCancelPending(rec)) {
      return { ...gateway, ends: "cancel", expiring: null, words: { reason: EXHAUSTION_CANCEL_REASON, cancelledBy: this.#cancelledBy } };
    }
    const rule = expiryRuleOf(rec.kind, rec.state);
    if (rec.expiry !== null && rec.state !== STATE.cancelled && rule?.reason !== rec.expiry) store2.change(() => expiry.unmark());
    const now = store2.current;
    if (!rule || !expiry.isDue(now, reconciler.phase(now), clock.now())) return null;
    return {
      ...gateway,
      ends: rule.ends,
      expiring: rule.reason,
      words: { reason: EXPIRY_CANCEL_REASON[rule.reason], cancelledBy: this.#cancelledBy }
    };
  }
  /** The gateway's cancel in the record's trail, in the settling change: rule 12's as `expire`, a lost cancel's refusal under its caller. */
  #audited(owed, requestId2, cancelled) {
    const { store: store2 } = this.#parts;
    if (owed.expiring) store2.trail.add({ at: clock.now(), op: "expire", actor: GATEWAY2, request_id: requestId2, outcome: cancelled.outcome });
    else if (owed.lost && cancelled.outcome === "refused") {
      store2.trail.add({
        at: clock.now(),
        op: "cancel",
        actor: owed.lost.actor ?? "user:unknown",
        request_id: owed.lost.requestId ?? requestId2,
        outcome: cancelled.code
      });
    }
    if (cancelled.outcome !== "retry") owed.ended?.();
    return { outcome: cancelled.outcome, ...cancelled.failure ? { failure: cancelled.failure } : {} };
  }
};

// src/record/move.ts
var NOT_FOUND = { code: "receipt_not_found", message: "No such receipt." };
var refusalOf = /* @__PURE__ */ __name((decision) => decision.do === "refuse" ? fail(decision.code, decision.message) : fail("operation_in_progress", "Retry shortly."), "refusalOf");
var Moves = class {
  static {
    __name(this, "Moves");
  }
  #parts;
  #env;
  #settlement;
  #answers;
  /** The operation in flight in this incarnation, if any. In memory on purpose: see #enter. */
  #busy = null;
  constructor(parts2, env) {
    this.#parts = parts2;
    this.#env = env;
    this.#settlement = new Settlement(parts2, readConfig(env).cancelledBy);
    this.#answers = new KeptAnswers(parts2);
  }
  get busy() {
    return this.#busy !== null;
  }
  /** Rule 12: the record is past its window (or its expiry's cancel is owed again). */
  expiryDue() {
    const { store: store2, reconciler, expiry } = this.#parts;
    const rec = store2.current;
    return rec !== null && expiry.isDue(rec, reconciler.phase(rec), clock.now());
  }
  /**
   * A request's money move, in the straight steps of this module's header:
   * every step reads the result of the one before, and nothing is handed in
   * to run later.
   */
  async run(spec, op) {
    const kept = this.#answers.replay(spec.operation, op);
    if (kept) return kept;
    const loaded = await this.#load(op, spec.operation === "cancel" || spec.operation === "hold-confirm");
    if (!loaded.ok) return loaded;
    const busy2 = this.#enter(spec.operation, op);
    if (busy2) return busy2;
    try {
      return await this.#move(spec, op, new UpstreamClient(this.#env, op.requestId));
    } catch (err) {
      return this.#failed(spec.operation, op, err);
    } finally {
      this.#busy = null;
    }
  }
  /** The steps after the lock: look if the rulebook asks, decide once, limits, note and call, settle and audit in one change, finish, answer. */
  async #move(spec, op, upstream) {
    const { store: store2, reconciler, ledger, expiry, writeAhead } = this.#parts;
    const answers = this.#answers;
    const { operation: operation2 } = spec;
    const seen = answers.lookup(operation2, op);
    if (seen.kind === "replay") return this.#audited(operation2, op, { ok: true, value: seen.answer.body, replayed: seen.answer });
    if (seen.kind === "reused") {
      const reused = "This Idempotency-Key was used for another request on this record; use a new key for a new request.";
      return this.#audited(operation2, op, fail("idempotency_key_reused", reused));
    }
    if (seen.kind === "unknown") {
      const looked = await this.reconcile(upstream, op.requestId);
      return this.#audited(operation2, op, looked.ok ? answers.afterUnknown(operation2, op) : looked);
    }
    const otp = spec.otp?.(store2.current, op);
    const otpMissing = otp === false;
    const fresh = expiry.isDue(store2.current, reconciler.phase(), clock.now()) || reconciler.asksForLook(operation2, op.caller.kind, { otpMissing });
    if (fresh) {
      const looked = await this.reconcile(upstream, op.requestId);
      if (!looked.ok) return this.#audited(operation2, op, looked);
    }
    const decision = reconciler.decide(operation2, op.caller.kind, fresh, { otpMissing });
    if (decision.do !== "call") return this.#audited(operation2, op, answers.keep(operation2, op, refusalOf(decision)));
    const limited = spec.settles === "send" ? ledger.sendRefusal(clock.now()) : null;
    if (limited) return this.#audited(operation2, op, { ok: false, error: limited });
    const uses = spec.risk?.(op);
    const risky = uses ? await admitRisk(this.#env, op.caller, uses, op.requestId) : null;
    if (risky) return this.#audited(operation2, op, { ok: false, error: risky });
    const sent = otpMissing ? void 0 : otp;
    answers.open(operation2, op);
    const note2 = { op: operation2, actor: ownerOf(op.caller), requestId: op.requestId, withOtp: sent !== void 0 };
    await writeAhead.note(note2);
    const called = await callOf(spec, upstream, store2.current, op, sent);
    const { result } = called;
    const unknown = !result.ok && result.outcome === "unknown";
    if (unknown) metric(this.#env, "unknown_outcome", { operation: `${store2.current.kind}/${operation2}` });
    const entry = { op: operation2, actor: ownerOf(op.caller), request_id: op.requestId };
    const exhausted = /* @__PURE__ */ __name(() => sent !== void 0 && reconciler.phase() === "exhausted", "exhausted");
    const answered = store2.change(() => {
      const settled = this.#settlement.settle(called, sent !== void 0, op.requestId, entry);
      if (unknown || exhausted()) return null;
      return answers.keep(operation2, op, settled.ok ? settled : { ok: false, error: this.#settlement.explained(settled.error, settled.verdict) });
    });
    if (answered) return answered;
    if (unknown) return { ok: false, error: result.failure };
    await this.#settlement.gatewayCancel(upstream, op.requestId, null);
    return answers.keep(operation2, op, { ok: false, error: reconciler.exhausted(op.caller.kind) });
  }
  /**
   * Asks the upstream how the record stands (the reconciler's look), then
   * carries out the one cancel the look left owed, decided for whom it acts
   * (src/record/settle.ts gatewayCancel): the cancel whose answer was lost,
   * rule 2's exhaustion cancel, or rule 12's expiry. A cancel the upstream
   * was too busy for fails the look: nothing was decided.
   */
  async reconcile(upstream, requestId2, ended) {
    const { store: store2, reconciler } = this.#parts;
    const attempts = store2.current.reconcile_attempts;
    const looked = await reconciler.look(upstream, requestId2);
    if (!looked.ok) return looked;
    const cancelled = await this.#settlement.gatewayCancel(upstream, requestId2, looked.value, ended);
    reconciler.countAttempt(attempts, cancelled?.outcome === "retry");
    return cancelled?.outcome === "retry" && cancelled.failure ? { ok: false, error: cancelled.failure } : { ok: true, value: void 0 };
  }
  /** The receipt or transfer as the upstream says it stands now (check-id, get-by-id). */
  async check(op) {
    const loaded = await this.#load(op, true);
    if (!loaded.ok) return loaded;
    const rec = loaded.value;
    if (this.#busy) return { ok: true, value: rec.body };
    if (this.#parts.reconciler.needsReconcile(rec) || this.expiryDue()) {
      const busy2 = this.#enter("read", op);
      if (busy2) return busy2;
      try {
        const looked = await this.reconcile(new UpstreamClient(this.#env, op.requestId), op.requestId);
        return this.#audited("read", op, looked.ok ? { ok: true, value: this.#parts.store.current.body } : looked);
      } catch (err) {
        return this.#failed("read", op, err);
      } finally {
        this.#busy = null;
      }
    }
    const read = await this.#parts.reconciler.read(new UpstreamClient(this.#env, op.requestId), op.requestId, () => this.busy);
    return read;
  }
  /**
   * The alarm's look, with no caller: what only the upstream can settle, a
   * late read due, or a fiscal read due (rule 14). Audited as the gateway's
   * when it changed something (the state, a note, a suspicion, the fiscal
   * phase) or failed.
   */
  async reconcileAlone(requestId2 = `alarm-${crypto.randomUUID()}`) {
    const { store: store2 } = this.#parts;
    const rec = store2.current;
    const changed = /* @__PURE__ */ __name(() => {
      const after = store2.current;
      return after.state !== rec.state || after.pending_op !== rec.pending_op || after.suspect_since !== rec.suspect_since || after.fiscal !== rec.fiscal;
    }, "changed");
    const entry = /* @__PURE__ */ __name((outcome) => store2.trail.add({ at: clock.now(), op: "reconcile", actor: "gateway", request_id: requestId2, outcome }), "entry");
    let audited = false;
    const ended = /* @__PURE__ */ __name(() => {
      if (!changed()) return;
      entry("ok");
      audited = true;
    }, "ended");
    this.#busy = "reconcile";
    try {
      const looked = await this.reconcile(new UpstreamClient(this.#env, requestId2), requestId2, ended);
      if (!audited && (!looked.ok || changed())) entry(looked.ok ? "ok" : looked.error.code);
      return looked;
    } finally {
      this.#busy = null;
    }
  }
  /**
   * An operator's point-in-time restore is scheduled (src/record/restore.ts):
   * until the object restarts into the restored storage, every operation
   * answers operation_in_progress and the alarm looks at nothing, so no call
   * reaches the upstream whose outcome the restore would then forget.
   */
  freeze() {
    this.#busy = "restore";
  }
  /**
   * After a restore: one look at the upstream, the alarm's (rule 8) when the
   * restored record owes one, else a read as check-id's, so a change the
   * record was restored away from is stored again, with its event.
   */
  async catchUp(requestId2) {
    const { store: store2, reconciler } = this.#parts;
    const rec = store2.current;
    if (!rec || this.#busy) return { ok: true, value: void 0 };
    if (reconciler.needsReconcile(rec) || this.expiryDue()) return this.reconcileAlone(requestId2);
    const read = await reconciler.read(new UpstreamClient(this.#env, requestId2), requestId2, () => this.busy);
    return read.ok ? { ok: true, value: void 0 } : read;
  }
  // --- the steps ----------------------------------------------------------------------------------
  /** Load and check access: the record (for the partner's cancel, hold-confirm and reads, a deleted one rebuilt: rule 10), if the caller may see it. */
  async #load(op, rebuild) {
    const { store: store2, end } = this.#parts;
    let rec = store2.load();
    if (!rec && rebuild && !this.#busy && op.caller.kind === "partner") {
      this.#busy = "rebuild";
      try {
        const rebuilt = await end.rebuild(op.record, op.caller, new UpstreamClient(this.#env, op.requestId), op.requestId);
        if (rebuilt && "code" in rebuilt) return { ok: false, error: rebuilt };
        rec = rebuilt;
      } finally {
        this.#busy = null;
      }
    }
    return rec && mayAccess(op.caller, rec.owner) ? { ok: true, value: rec } : { ok: false, error: NOT_FOUND };
  }
  /**
   * One at a time: a second operation arriving while the first awaits the
   * upstream is refused, not queued (a queued OTP guess would be judged
   * against a state its sender never saw). The flag lives in memory because
   * a Durable Object is single-threaded; what must survive an eviction
   * mid-flight is the write-ahead note in storage. Null when the operation
   * may go on (the flag is then set: the caller clears it when done); else
   * the refusal, audited.
   */
  #enter(operation2, op) {
    if (this.#busy) {
      const busy2 = fail("operation_in_progress", `Another operation is in flight for this ${this.#parts.store.current.kind}.`, { retry_after: 1 });
      return this.#audited(operation2, op, busy2);
    }
    this.#busy = operation2;
    return null;
  }
  /** What an operation that threw answers: logged and audited as internal_error. */
  #failed(operation2, op, err) {
    log("error", "receipt_operation_failed", { request_id: op.requestId, op: operation2, error: err instanceof Error ? err.message : String(err) });
    return this.#audited(operation2, op, fail("internal_error", "The gateway failed to handle this operation."));
  }
  /** Every outcome of a request is audited once, in the record's trail; a refusal of rule 13 names its limit. */
  #audit(operation2, op, outcome) {
    const { error } = outcome.ok ? { error: null } : outcome;
    const code = error === null ? "ok" : error.rule ? `${error.code}:${error.rule}` : error.code;
    this.#parts.store.trail.add({ at: clock.now(), op: operation2, actor: ownerOf(op.caller), request_id: op.requestId, outcome: code });
  }
  /** Audits the outcome and answers it. */
  #audited(operation2, op, outcome) {
    this.#audit(operation2, op, outcome);
    return outcome;
  }
};

// src/record/alarm.ts
var Alarm = class {
  static {
    __name(this, "Alarm");
  }
  #storage;
  /** The alarm this incarnation set (null: none; undefined: not set since it started). */
  #at = void 0;
  /** The alarm storage held when this incarnation started, by the deployment's time (undefined: not read, or no longer true). */
  #found = void 0;
  constructor(storage) {
    this.#storage = storage;
  }
  /** What storage holds as this incarnation starts (read before its first call). */
  found(at) {
    if (this.#at === void 0) this.#found = at;
  }
  /** The alarm has fired, or storage was deleted with it: none is set until the next set(). */
  fired() {
    this.#at = null;
    this.#found = void 0;
  }
  /** The record's own time moved (the sandbox's test clock): the alarm set is set again, where its time now falls. */
  moved() {
    this.#at = void 0;
    this.#found = void 0;
  }
  /** The alarm as this incarnation knows it, in the record's own time (undefined: not known). */
  #known() {
    if (this.#at !== void 0) return this.#at;
    return typeof this.#found === "number" ? this.#found + clock.recordOffset() : this.#found;
  }
  /** An alarm is known to be set between now and `latest`. */
  setWithin(now, latest) {
    const at = this.#known();
    return typeof at === "number" && at >= now && at <= latest;
  }
  set(at) {
    if (at === this.#known()) {
      this.#at = at;
      return;
    }
    if (at === null) {
      if (this.#at === void 0) return;
      this.#storage.deleteAlarm();
    } else {
      this.#storage.setAlarm(at - clock.recordOffset());
    }
    this.#at = at;
  }
};

// src/record/audit-export.ts
function recordLines(store2) {
  const rec = store2.current;
  const owed = store2.trail.toExport();
  if (!rec || owed.length === 0) return null;
  const user = rec.owner.startsWith("user:") ? eventOwner(rec.owner) : void 0;
  let detail;
  const detailOf = /* @__PURE__ */ __name(() => {
    if (detail) return detail;
    const body = store2.parsedBody();
    detail = rec.kind === "receipt" ? {
      tid: rec.tid,
      amount: body.amount,
      merchant_id: body.merchant?.merchant_id,
      account: Array.isArray(body.account) ? body.account : []
    } : { tid: rec.tid, amount: body.receiver?.amount };
    return detail;
  }, "detailOf");
  const lines2 = owed.map(({ entry, n }) => ({
    id: `${rec.kind === "receipt" ? "r" : "t"}:${rec.id}:${entry.at}:${n}`,
    at: entry.at,
    source: "record",
    op: entry.op,
    // As the record's own trail answers them: "partner", "user:<sub>", "gateway", "operator".
    actor: entry.actor.startsWith("partner:") ? "partner" : entry.actor,
    request_id: entry.request_id,
    outcome: entry.outcome,
    state: entry.state,
    kind: rec.kind,
    receipt_id: rec.id,
    ...user ? { user } : {},
    ...entry.op === "create" || entry.op === "rebuild" ? { detail: detailOf() } : {}
  }));
  return { lines: lines2, last: owed[owed.length - 1].tuple };
}
__name(recordLines, "recordLines");
var AuditExport = class {
  static {
    __name(this, "AuditExport");
  }
  #store;
  #env;
  #failures = 0;
  #exporting = null;
  constructor(store2, env) {
    this.#store = store2;
    this.#env = env;
  }
  /** Entries of the trail are not in R2 yet. */
  get owed() {
    return this.#store.current !== null && this.#store.trail.toExport().length > 0;
  }
  /** Owed past their hold, and no export failed lately or is under way: worth sending at once (an operation that came after the alarm was due). */
  ready(now) {
    if (this.#failures !== 0 || this.#exporting !== null) return false;
    const oldest = this.#oldestOwedAt();
    return oldest !== null && oldest + holdMs(this.#env) <= now;
  }
  /**
   * When the alarm should come for owed entries, and the latest an alarm
   * already set may be: the oldest owed entry's hold ends (an alarm due
   * sooner carries them, and the operations meanwhile add theirs), or after
   * a failed export its backoff.
   */
  dueAt(now) {
    const oldest = this.#oldestOwedAt();
    if (oldest === null) return null;
    if (this.#failures > 0) {
      const wait = backoffMs(this.#failures);
      return { at: now + wait, latest: now + 2 * wait };
    }
    const at = oldest + holdMs(this.#env);
    return { at, latest: at };
  }
  /** The time of the oldest entry not exported yet, or null when none is owed. */
  #oldestOwedAt() {
    if (this.#store.current === null) return null;
    return this.#store.trail.toExport()[0]?.entry.at ?? null;
  }
  /** Sends the owed entries to the record's writer; marks them once it answered. Never throws. */
  export() {
    this.#exporting ??= this.#send().finally(() => {
      this.#exporting = null;
    });
    return this.#exporting;
  }
  async #send() {
    const owed = recordLines(this.#store);
    if (!owed) return;
    const rec = this.#store.current;
    const chain = chainFor(this.#env, `${rec.kind}:${rec.id}`);
    try {
      await this.#env.AUDIT_WRITER.get(this.#env.AUDIT_WRITER.idFromName(chain)).append(chain, owed.lines, { group: true });
      this.#store.trail.markExported(owed.last);
      this.#failures = 0;
    } catch (err) {
      this.#failures++;
      log("warn", "audit_export_failed", {
        id: rec.id,
        kind: rec.kind,
        entries: owed.lines.length,
        failures: this.#failures,
        error: err instanceof Error ? err.message : String(err)
      });
    }
  }
};

// src/record/completion.ts
var COMPLETION_CHECK_MS = 1e4;
var RETRY_MS = 6e4;
var Completion = class _Completion {
  static {
    __name(this, "Completion");
  }
  #store;
  #slice;
  #env;
  /** How long the create's claim holds its tid (src/tids/tid-index.ts leaseMs). */
  #leaseMs;
  #failedAt = 0;
  constructor(store2, env, upstreamTimeoutMs) {
    this.#store = store2;
    this.#slice = store2.slice("completion", ["owed_completion"]);
    this.#env = env;
    this.#leaseMs = leaseMs(upstreamTimeoutMs);
  }
  /** A takeover's init (the same record, adopted) owes its own claim's completion. */
  owe(owed) {
    const text2 = _Completion.serialize(owed);
    if (this.#store.current?.owed_completion !== text2) this.#slice.update({ owed_completion: text2 });
  }
  static serialize(owed) {
    return JSON.stringify(owed);
  }
  owed(rec) {
    return rec.owed_completion ? JSON.parse(rec.owed_completion) : null;
  }
  /**
   * When the alarm should complete what is owed, and the latest an alarm
   * already set may be and still do; null when nothing is. The check backs
   * up the request's own completion (a backstop, not a deadline), so an
   * alarm up to a claim's lease after the answer does: until about then the
   * row is a pending claim an identical retry and check-tid wait for
   * (tid_in_progress); past the lease, counted from the claim just before
   * the answer, the retry takes the claim over and adopts the record, as
   * for any create that never finished. At production's pace the trail's
   * export needs the alarm by then anyway, so the check costs no alarm of
   * its own. A retry after D1 refused is due at its time.
   */
  dueAt(rec) {
    const owed = this.owed(rec);
    if (!owed) return null;
    if (this.#failedAt) return { at: this.#failedAt + RETRY_MS, latest: this.#failedAt + RETRY_MS };
    return { at: owed.answeredAt + COMPLETION_CHECK_MS, latest: owed.answeredAt + this.#leaseMs };
  }
  /** Completes the owed row (if the request has not) and forgets it. Never throws: a failure waits for the next alarm. */
  async settle(rec, now) {
    const owed = this.owed(rec);
    if (!owed) return;
    try {
      const db = this.#env[owed.binding];
      if (!db) throw new Error(`no D1 binding ${owed.binding}`);
      const done = await completeTid(db, owed, owed.receiptId, owed.answeredAt, retentionPolicy(this.#env).tidRetentionMs);
      if (done) log("info", "tid_completed_by_record", { id: owed.receiptId, binding: owed.binding });
      this.#failedAt = 0;
      if (this.#store.current?.owed_completion === rec.owed_completion) this.#slice.later({ owed_completion: null });
    } catch (err) {
      this.#failedAt = now;
      log("error", "tid_completion_failed", { id: owed.receiptId, binding: owed.binding, error: err instanceof Error ? err.message : String(err) });
    }
  }
};

// src/record/fiscal.ts
var FISCAL_COLUMNS = ["fiscal", "fiscal_since", "fiscal_reads", "fiscal_listed"];
var LISTING_FALLBACK_MS = 1e4;
function fiscalColumnsOf(kind, body, now) {
  const fiscal = fiscalPhaseOf({ kind, state: kindNamed(kind).stateOf(body), ofd: body.ofd, before: null });
  const pending = isFiscalPending(fiscal);
  return { fiscal, fiscal_since: pending ? now : 0, fiscal_reads: 0, fiscal_listed: pending ? 0 : 1 };
}
__name(fiscalColumnsOf, "fiscalColumnsOf");
var FiscalWatch = class {
  static {
    __name(this, "FiscalWatch");
  }
  #store;
  #slice;
  #outbox;
  #env;
  #schedule;
  /** Bumped by every change of what the list should show: a listing written from an older one is not marked done. */
  #changes = 0;
  /** Listing writes that failed in a row (the backoff). */
  #failures = 0;
  /** The listing write under way, if any (one at a time). */
  #syncing = null;
  constructor(store2, outbox, env, schedule) {
    this.#store = store2;
    this.#slice = store2.slice("fiscal", FISCAL_COLUMNS);
    this.#outbox = outbox;
    this.#env = env;
    this.#schedule = schedule;
  }
  /** The fiscal data is missing: the record is watched, listed, and kept (rule 10). */
  isPending(rec = this.#store.current) {
    return isFiscalPending(rec.fiscal);
  }
  /** The fiscal list does not show the record as it stands yet. */
  owesListing(rec = this.#store.current) {
    return rec !== null && rec.fiscal_listed === 0;
  }
  /**
   * What the upstream showed was just stored (the recorder's change): the
   * receipt's fiscal phase follows it, and the data shown at last is its
   * event. A look at the upstream counts as every scheduled read due by now.
   * Inside a change.
   */
  observed(requestId2) {
    const rec = this.#store.current;
    const before = rec.fiscal;
    const ofd = this.#store.parsedBody().ofd;
    const after = fiscalPhaseOf({ kind: rec.kind, state: rec.state, ofd, before });
    const now = clock.now();
    let { fiscal_since: since, fiscal_reads: reads } = rec;
    if (isFiscalPending(after) && after !== before) {
      since = now;
      reads = 0;
    } else if (isFiscalPending(after)) {
      reads = fiscalReadsDoneAt({ since, reads }, this.#schedule, now);
    }
    const listed = isFiscalPending(before) || isFiscalPending(after);
    const moved = after !== before || since !== rec.fiscal_since || reads !== rec.fiscal_reads;
    if (!moved) return;
    this.#slice.update({ fiscal: after, fiscal_since: since, fiscal_reads: reads, ...listed ? { fiscal_listed: 0 } : {} });
    if (listed) this.#changes++;
    const type = fiscalEventOf(rec.kind, before, after);
    if (type) this.#outbox.emit(type, rec.state, requestId2, now);
  }
  /** When the next scheduled read is due, or null (not pending, or every read of the schedule done). */
  readAt(rec = this.#store.current) {
    if (!isFiscalPending(rec.fiscal)) return null;
    return fiscalReadAt({ since: rec.fiscal_since, reads: rec.fiscal_reads }, this.#schedule);
  }
  /** A scheduled read is due: the alarm looks at the upstream. */
  isDue(rec, now = clock.now()) {
    const at = this.readAt(rec);
    return at !== null && at <= now;
  }
  /** When the alarm should come for the next read: a read that failed backs off like any other look. */
  dueAt(rec, now) {
    const at = this.readAt(rec);
    if (at === null) return null;
    return rec.reconcile_attempts > 0 ? Math.max(at, now + backoffMs(rec.reconcile_attempts)) : at;
  }
  /** When the alarm should come back for an owed listing, and the latest an alarm already set may be; null when none is owed. */
  listingDueAt(now) {
    if (!this.owesListing()) return null;
    const wait = this.#failures === 0 ? LISTING_FALLBACK_MS : backoffMs(this.#failures);
    return { at: now + wait, latest: now + 2 * wait };
  }
  /** A listing is owed and no write has failed lately: worth writing at once. */
  get ready() {
    return this.#failures === 0 && this.#syncing === null && this.owesListing();
  }
  /** What the list should show of the record: its row, or none. */
  #listing(rec) {
    if (!isFiscalPending(rec.fiscal)) return null;
    const amount2 = kindNamed(rec.kind).amountOf(this.#store.parsedBody());
    return {
      id: rec.id,
      tid: rec.tid,
      amount: typeof amount2 === "number" ? amount2 : 0,
      state: rec.state,
      since: rec.fiscal_since,
      reads: rec.fiscal_reads
    };
  }
  /**
   * Writes the owed listing (the row, or its deletion), one write at a time;
   * marks it done once it landed and nothing changed meanwhile (else writes
   * again). The mark waits for the row's next write: an incarnation that
   * stops before it writes the same listing again. Never throws.
   */
  sync() {
    this.#syncing ??= this.#sync().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }
  async #sync() {
    for (; ; ) {
      const rec = this.#store.current;
      if (!rec || !this.owesListing(rec)) return;
      const changes = this.#changes;
      const listing = this.#listing(rec);
      try {
        if (listing) await listFiscal(this.#env, listing);
        else await unlistFiscal(this.#env, rec.id);
      } catch (err) {
        this.#failures++;
        log("warn", "fiscal_listing_failed", {
          id: rec.id,
          fiscal: rec.fiscal,
          failures: this.#failures,
          error: err instanceof Error ? err.message : String(err)
        });
        return;
      }
      this.#failures = 0;
      if (this.#store.current === null) return;
      if (changes === this.#changes) {
        this.#slice.later({ fiscal_listed: 1 });
        return;
      }
    }
  }
};

// src/record/event-texts.ts
var GRAM = 16;
var MIN_RUN = 24;
var MAX_PLACES = 8;
function decodeBody(parts2, texts) {
  let body = "";
  for (const part of parts2) {
    if (typeof part === "string") body += part;
    else if (typeof part === "number") body += textOf(texts, part);
    else body += textOf(texts, part[0]).slice(part[1], part[2]);
  }
  return body;
}
__name(decodeBody, "decodeBody");
function textOf(texts, n) {
  const text2 = texts[n];
  if (typeof text2 !== "string") throw new Error(`an event refers to the row's text ${n}, which it does not hold`);
  return text2;
}
__name(textOf, "textOf");
function bodyEncoder(texts) {
  const placesOf = /* @__PURE__ */ __name((gram) => {
    const places = [];
    for (const [n, text2] of texts.entries()) {
      if (text2 === null) continue;
      for (let at = text2.indexOf(gram); at >= 0 && places.length < MAX_PLACES; at = text2.indexOf(gram, at + 1)) places.push([n, at]);
      if (places.length >= MAX_PLACES) break;
    }
    return places;
  }, "placesOf");
  const grams = gramFilter(texts);
  return (body) => {
    const parts2 = [];
    let literal2 = 0;
    let i = 0;
    let hash = body.length >= GRAM ? gramHash(body, 0) : 0;
    let hashAt = 0;
    while (i + GRAM <= body.length) {
      if (hashAt !== i) {
        hash = gramHash(body, i);
        hashAt = i;
      }
      if (!grams.mayHold(hash)) {
        if (i + GRAM < body.length) hash = rollHash(hash, body.charCodeAt(i), body.charCodeAt(i + GRAM));
        i++;
        hashAt = i;
        continue;
      }
      let best = null;
      for (const [n2, at2] of placesOf(body.slice(i, i + GRAM))) {
        const length2 = agreeing(body, i, texts[n2], at2);
        if (!best || length2 > best[2]) best = [n2, at2, length2];
      }
      if (!best || best[2] < MIN_RUN) {
        i++;
        continue;
      }
      const [n, at, length] = best;
      if (i > literal2) parts2.push(body.slice(literal2, i));
      parts2.push(at === 0 && length === texts[n].length ? n : [n, at, at + length]);
      i += length;
      literal2 = i;
    }
    if (literal2 < body.length) parts2.push(body.slice(literal2));
    return parts2.some((part) => typeof part !== "string") && decodeBody(parts2, texts) === body ? parts2 : [body];
  };
}
__name(bodyEncoder, "bodyEncoder");
var BASE = 16777619;
var BASE_TOP = (() => {
  let power = 1;
  for (let k = 1; k < GRAM; k++) power = Math.imul(power, BASE);
  return power;
})();
function gramHash(text2, at) {
  let hash = 0;
  for (let k = at; k < at + GRAM; k++) hash = Math.imul(hash, BASE) + text2.charCodeAt(k) | 0;
  return hash;
}
__name(gramHash, "gramHash");
function rollHash(hash, leaving, entering) {
  return Math.imul(hash - Math.imul(leaving, BASE_TOP) | 0, BASE) + entering | 0;
}
__name(rollHash, "rollHash");
var FILTER_BITS = 1 << 16;
function gramFilter(texts) {
  const bits = new Uint32Array(FILTER_BITS / 32);
  const slot = /* @__PURE__ */ __name((hash) => Math.imul(hash, 2654435761) >>> 16 & FILTER_BITS - 1, "slot");
  for (const text2 of texts) {
    if (text2 === null || text2.length < GRAM) continue;
    let hash = gramHash(text2, 0);
    for (let at = 0; ; at++) {
      const s = slot(hash);
      bits[s >>> 5] = (bits[s >>> 5] ?? 0) | 1 << (s & 31);
      if (at + GRAM >= text2.length) break;
      hash = rollHash(hash, text2.charCodeAt(at), text2.charCodeAt(at + GRAM));
    }
  }
  return {
    mayHold(hash) {
      const s = slot(hash);
      return ((bits[s >>> 5] ?? 0) & 1 << (s & 31)) !== 0;
    }
  };
}
__name(gramFilter, "gramFilter");
function agreeing(body, i, text2, j) {
  let n = 0;
  while (i + n < body.length && j + n < text2.length && body[i + n] === text2[j + n]) n++;
  return n;
}
__name(agreeing, "agreeing");

// src/record/key-texts.ts
var textsOf = /* @__PURE__ */ __name((row) => [row.answer, row.body], "textsOf");
function keysFromColumn(column, row) {
  if (!column) return column ?? null;
  const entries = JSON.parse(column);
  if (!entries.some((entry) => Array.isArray(entry[6]))) return column;
  const texts = textsOf(row);
  const whole2 = /* @__PURE__ */ __name((answer) => Array.isArray(answer) ? decodeBody(answer, texts) : answer, "whole");
  return JSON.stringify(entries.map((entry) => entry.map((field, i) => i === 6 ? whole2(field) : field)));
}
__name(keysFromColumn, "keysFromColumn");
function keysColumn(keys, _row) {
  return keys ?? null;
}
__name(keysColumn, "keysColumn");

// src/record/outbox-rows.ts
var textsOf2 = /* @__PURE__ */ __name((row) => [row.answer, row.body], "textsOf");
function storedEvents(row) {
  const texts = textsOf2(row);
  return JSON.parse(row.events).map(([id, ...parts2]) => [id, withObjectType(decodeBody(parts2, texts))]);
}
__name(storedEvents, "storedEvents");
var OutboxRows = class {
  static {
    __name(this, "OutboxRows");
  }
  #writer;
  /** Every event of the record, oldest first; null while no record is loaded. */
  #events = null;
  /** How many of the first events are in the event log, as this incarnation knows. */
  #logged = 0;
  constructor(writer) {
    this.#writer = writer;
  }
  /** The record's events as its row holds them. */
  know(row) {
    this.#events = storedEvents(row);
    this.#logged = row.events_logged;
  }
  /** Storage was deleted, or a failed step left the events unknown. */
  forget() {
    this.#events = null;
    this.#logged = 0;
  }
  snapshot() {
    return { events: this.#events?.slice() ?? null, logged: this.#logged };
  }
  restore(snapshot) {
    this.#events = snapshot.events;
    this.#logged = snapshot.logged;
  }
  /** Adds an event to the outbox (kept with the record); call inside the `change` that made it happen. */
  enqueue(eventId, body) {
    if (!this.#events) throw new Error("no record to add an event to");
    this.#events.push([eventId, body]);
    this.#writer.write();
  }
  /** The oldest events not in the event log, up to `limit`. */
  unsent(limit) {
    return (this.#events ?? []).slice(this.#logged, this.#logged + limit).map(([event_id, body], i) => ({ seq: this.#logged + i, event_id, body }));
  }
  hasUnsent() {
    return this.#events !== null && this.#logged < this.#events.length;
  }
  /** Rewrites every outbox event's body with `rewrite` (rule 10's erasure). Inside a change. */
  rewrite(rewrite) {
    if (!this.#events) return;
    const before = JSON.stringify(this.#events);
    this.#events = this.#events.map(([id, body]) => [id, rewrite(body)]);
    if (JSON.stringify(this.#events) !== before) this.#writer.write();
  }
  /** The `events` column for a row with these texts: every body as parts of them where it repeats them. */
  column(row) {
    const encode4 = bodyEncoder(textsOf2(row));
    return JSON.stringify((this.#events ?? []).map(([id, body]) => [id, ...encode4(body)]));
  }
  /**
   * These events (the oldest unsent, as `unsent` gave them) are in the event
   * log. Logged events stay: the record gives their bodies to events/list,
   * events/resend and the sweep for as long as the event log lists them
   * (docs/events.md), and they go with the record. The mark waits for the
   * row's next write (this module's header).
   */
  markSent(seqs) {
    if (seqs.length === 0 || !this.#events) return;
    const logged = Math.min(this.#events.length, Math.max(this.#logged, ...seqs.map((seq) => seq + 1)));
    if (logged === this.#logged) return;
    this.#logged = logged;
    this.#writer.defer({ events_logged: logged });
  }
  /** The bodies of these events that the outbox holds, byte for byte as signed and sent, by event id. */
  eventBodies(ids) {
    const wanted = new Set(ids);
    return Object.fromEntries((this.#events ?? []).filter(([id]) => wanted.has(id)));
  }
  /** The ids of every event the record keeps, oldest first: all the event log may list of it. */
  eventIds() {
    return (this.#events ?? []).map(([id]) => id);
  }
};

// src/record/schema.ts
var CURRENT_SCHEMA_VERSION = 9;
var OLDEST_READER_VERSION = 8;
var NewerSchemaError = class extends Error {
  static {
    __name(this, "NewerSchemaError");
  }
  constructor(from, target) {
    super(`${NEWER_SCHEMA}: storage is at schema ${from}, newer than this gateway's ${target}`);
  }
};
var NO_SEQ = "9223372036854775807";
var JS_WHITESPACE = "char(9, 10, 11, 12, 13, 32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288, 65279)";
var SIGNED = `(json_type(body, '$.ofd.fiscalSign') = 'text' AND trim(body ->> '$.ofd.fiscalSign', ${JS_WHITESPACE}) <> ''
  AND json_type(body, '$.ofd.qrCodeUrl') = 'text' AND trim(body ->> '$.ofd.qrCodeUrl', ${JS_WHITESPACE}) <> '')`;
var PENDING = "('sale_pending', 'refund_pending')";
var FISCAL_PHASE = `CASE
  WHEN state = 4 THEN CASE
    WHEN fiscal IS 'sale' THEN 'sale'
    WHEN json_type(body, '$.ofd') IS NOT 'object' THEN CASE WHEN fiscal IS 'sale_pending' THEN 'sale_pending' END
    WHEN ${SIGNED} THEN 'sale' ELSE 'sale_pending' END
  WHEN state = 21 THEN CASE
    WHEN fiscal IS 'refund' THEN 'refund'
    WHEN fiscal IS NULL AND json_type(body, '$.ofd') IS NOT 'object' THEN NULL
    WHEN ${SIGNED} AND coalesce(body ->> '$.ofd.type', '') <> 'Sale' THEN 'refund' ELSE 'refund_pending' END
  ELSE fiscal END`;
var MIGRATIONS = {
  // Rule 12: when the record became held (its hold's window starts there) and the expiry the gateway decided.
  // A record held before it keeps its last change's time: never earlier than when it became held.
  2: [
    "ALTER TABLE record ADD COLUMN held_at INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN expiry TEXT",
    "UPDATE record SET held_at = updated_at WHERE state = 5"
  ],
  /**
   * 3: the outbox moves into the record's row, so an object is one table
   * (one page less) and an event is no row of its own: the record gets
   * `events` (JSON: [event_id, body] of every event, oldest first, bodies as
   * text, byte for byte) and `events_logged` (how many of the first are in
   * the event log); the outbox's rows are copied there in their order (seq),
   * the events logged before the first one that is not are counted as logged
   * (the drain marks a prefix; a logged event after an unlogged one is
   * drained again, which logs nothing twice), and the outbox table is dropped.
   */
  3: [
    "ALTER TABLE record ADD COLUMN events TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE record ADD COLUMN events_logged INTEGER NOT NULL DEFAULT 0",
    `UPDATE record SET
       events = (SELECT json_group_array(json_array(event_id, body) ORDER BY seq) FROM outbox),
       events_logged = (SELECT count(*) FROM outbox WHERE seq < (SELECT coalesce(min(seq), ${NO_SEQ}) FROM outbox WHERE logged_at IS NULL))`,
    "DROP TABLE outbox"
  ],
  /**
   * 4: an event's body in `events` is kept as parts (src/record/event-texts.ts)
   * and no longer repeats the row's texts: a paid record's row fits the
   * table's one page instead of spilling into an overflow page (4 KB an
   * object). Every body stored so far that holds the record's body (or
   * else the create's answer) whole keeps that text as a reference to it
   * (1: body, 0: answer), the text around it as it is; any other is one
   * part, as it was. The next write of the row encodes each against the
   * row as it is then. The layout stays as it was: an older gateway reading
   * these parts as schema 3's pairs would give wrong bodies, so the version
   * keeps it out (\`migrate\` refuses a newer schema).
   */
  4: [
    `UPDATE record SET events = (
       SELECT json_group_array(CASE
         WHEN instr(e.value ->> 1, record.body) > 0
           THEN json_array(e.value ->> 0, substr(e.value ->> 1, 1, instr(e.value ->> 1, record.body) - 1), 1,
                           substr(e.value ->> 1, instr(e.value ->> 1, record.body) + length(record.body)))
         WHEN record.answer IS NOT NULL AND instr(e.value ->> 1, record.answer) > 0
           THEN json_array(e.value ->> 0, substr(e.value ->> 1, 1, instr(e.value ->> 1, record.answer) - 1), 0,
                           substr(e.value ->> 1, instr(e.value ->> 1, record.answer) + length(record.answer)))
         ELSE json(e.value) END ORDER BY e.key)
       FROM json_each(record.events) AS e)`
  ],
  /**
   * 5: rule 14's watch of a receipt whose fiscal data is missing
   * (src/record/fiscal.ts): its fiscal phase, when its watch began, the reads
   * done, and whether the fiscal list (D1) shows it. An expansion: schema-4
   * code reads and writes the row and leaves these columns alone.
   *
   * The receipt is put where lifecycle's fiscalPhaseOf puts it from its state
   * and body, the phase stored standing for the one before (FISCAL_PHASE).
   * Stored before this schema (no phase): paid (4) with an `ofd` lacking a
   * fiscal sign or QR address is `sale_pending`; paid with both, `sale`;
   * cancelled (21) with an `ofd` (its sale was fiscalized) is `refund`, or
   * `refund_pending` while that `ofd` lacks either or is still the sale's. A
   * new pending phase starts a watch counted from the row's last change
   * (about when it was paid or cancelled), so its reads are due at once, and
   * a pending phase begun or ended owes the listing (written once the record
   * is next opened: an operation, a read, its alarm).
   *
   * Run again on every open while a schema-4 release may have written the
   * row (OLDEST_READER_VERSION): a receipt it paid or cancelled gets its phase
   * here as this code would have given it. A row this code keeps never
   * changes (every change of state or body passes through fiscalPhaseOf, and
   * it is idempotent), nor does a pending phase whose data the row now shows:
   * that is an event (`receipt.fiscalized`), which this code's next look at
   * the upstream stores with it, as for any receipt still watched.
   */
  5: [
    "ALTER TABLE record ADD COLUMN fiscal TEXT",
    "ALTER TABLE record ADD COLUMN fiscal_since INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN fiscal_reads INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN fiscal_listed INTEGER NOT NULL DEFAULT 1",
    `UPDATE record SET
       fiscal = derived.phase,
       fiscal_since = CASE WHEN derived.phase IN ${PENDING} THEN updated_at ELSE fiscal_since END,
       fiscal_reads = CASE WHEN derived.phase IN ${PENDING} THEN 0 ELSE fiscal_reads END,
       fiscal_listed = CASE WHEN derived.phase IN ${PENDING} OR fiscal IN ${PENDING} THEN 0 ELSE fiscal_listed END
     FROM (SELECT ${FISCAL_PHASE} AS phase FROM record) AS derived
     WHERE kind = 'receipt' AND derived.phase IS NOT fiscal
       AND NOT (fiscal IS 'sale_pending' AND derived.phase IS 'sale') AND NOT (fiscal IS 'refund_pending' AND derived.phase IS 'refund')`
  ],
  /**
   * 6: the record's own time (src/shared/clock.ts inRecordTime): how far the
   * sandbox's test clock moved it ahead of the deployment's, 0 for every
   * record that was never advanced (all of production's). An expansion: code
   * before it reads and writes the row and leaves the column alone, and only
   * runs an advanced record on the deployment's time (a sandbox's, after a
   * rollback: its record's deadlines come later, none twice).
   */
  6: ["ALTER TABLE record ADD COLUMN clock_offset INTEGER NOT NULL DEFAULT 0"],
  /**
   * 7: the row's `updated_at` as this layout's code last wrote it
   * (`written_at`). Every write of this code sets both; a release before it
   * that changes the record moves `updated_at` alone. So a row whose two
   * agree is as this code left it, and the expansions above the stamp need
   * not run again when it is opened (src/record/store.ts load): they cost a
   * cold open its most CPU, on every incarnation of every record. One that
   * disagrees (stored or changed by a release before) runs them, and is
   * marked as this code's in the same step.
   */
  7: ["ALTER TABLE record ADD COLUMN written_at INTEGER NOT NULL DEFAULT 0"],
  /**
   * 8: rule 11's keys in the record's row (`keys`, src/record/keys.ts),
   * instead of an `idempotency` table of the record's own (a keyed pay's five
   * rows and two pages). An incompatible change in two releases: the first
   * (030096c) read both places and wrote the table; this code writes the row
   * alone and stamps 8, which that release reads and schema 4's refuses.
   * A table a release before made stays, read and erased, for its record's
   * life.
   */
  8: ["ALTER TABLE record ADD COLUMN keys TEXT"],
  /**
   * 9: rule 11's kept answers in `keys` as parts of the row's texts (the
   * create's answer and the record's body, as the events' bodies are:
   * src/record/event-texts.ts), so a keyed pay's row stays in the table's
   * page instead of spilling into an overflow page. The layout stays as it
   * is; the first step of an incompatible change: this code reads an answer
   * in either form and still writes text, which the release before (schema
   * 8) reads, and writes a column it finds in parts back as text with the
   * stamp it gives the row (src/record/store.ts load). The release after
   * this one writes the parts and stamps 9, once this one is the release it
   * rolls back to.
   */
  9: []
};
var SCHEMA_CURRENT = `
  CREATE TABLE record (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    kind TEXT NOT NULL, id TEXT NOT NULL, tid TEXT NOT NULL, upstream_tid TEXT NOT NULL, owner TEXT NOT NULL,
    is_hold INTEGER NOT NULL, qr_merchant INTEGER NOT NULL, is_verify INTEGER NOT NULL,
    state INTEGER NOT NULL, body TEXT NOT NULL, erased INTEGER NOT NULL DEFAULT 0, answer TEXT,
    wrong_otps INTEGER NOT NULL DEFAULT 0, unconfirmed_otps INTEGER NOT NULL DEFAULT 0,
    otp_sends INTEGER NOT NULL DEFAULT 0, last_otp_sent_at INTEGER NOT NULL DEFAULT 0,
    resend_wait_ms INTEGER NOT NULL DEFAULT 0, edge_closed INTEGER NOT NULL DEFAULT 0,
    pending_op TEXT, pending_otp INTEGER NOT NULL DEFAULT 0, pending_since INTEGER NOT NULL DEFAULT 0,
    pending_request_id TEXT, pending_actor TEXT,
    suspect_since INTEGER NOT NULL DEFAULT 0, suspect_reads INTEGER NOT NULL DEFAULT 0, suspect_otp INTEGER NOT NULL DEFAULT 0,
    reconcile_attempts INTEGER NOT NULL DEFAULT 0, event_seq INTEGER NOT NULL DEFAULT 0, owed_completion TEXT,
    held_at INTEGER NOT NULL DEFAULT 0, expiry TEXT,
    fiscal TEXT, fiscal_since INTEGER NOT NULL DEFAULT 0, fiscal_reads INTEGER NOT NULL DEFAULT 0,
    fiscal_listed INTEGER NOT NULL DEFAULT 1, clock_offset INTEGER NOT NULL DEFAULT 0,
    audit TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    written_at INTEGER NOT NULL DEFAULT 0, schema_version INTEGER NOT NULL DEFAULT ${OLDEST_READER_VERSION},
    events TEXT NOT NULL DEFAULT '[]', events_logged INTEGER NOT NULL DEFAULT 0, keys TEXT);`;
function storedVersion(sql2) {
  const column = sql2.exec("PRAGMA table_info(record)").toArray().find((c) => c.name === "schema_version");
  if (!column) return 0;
  const row = sql2.exec("SELECT schema_version FROM record").toArray()[0];
  return row?.schema_version ?? Number(column.dflt_value);
}
__name(storedVersion, "storedVersion");
var isSettled = /* @__PURE__ */ __name((stamp) => stamp === OLDEST_READER_VERSION && stamp === CURRENT_SCHEMA_VERSION, "isSettled");
var NEWEST_COLUMN = "keys";
var asWritten = /* @__PURE__ */ __name((row) => typeof row.written_at === "number" && row.written_at === row.updated_at && NEWEST_COLUMN in row, "asWritten");
function addedColumn(statement) {
  const adds = /^\s*ALTER\s+TABLE\s+(\w+)\s+ADD\s+(?:COLUMN\s+)?(\w+)/i.exec(statement);
  return adds ? { table: adds[1].toLowerCase(), column: adds[2].toLowerCase() } : null;
}
__name(addedColumn, "addedColumn");
function migrate(storage, create, from = storedVersion(storage.sql), migrations = MIGRATIONS, target = CURRENT_SCHEMA_VERSION, stamp = OLDEST_READER_VERSION) {
  const sql2 = storage.sql;
  if (from === 0 && !create) return from;
  if (from > target) throw new NewerSchemaError(from, target);
  if (from === 0) {
    sql2.exec(SCHEMA_CURRENT);
    return target;
  }
  if (from === stamp && stamp === target) return target;
  const columns = /* @__PURE__ */ new Map();
  const columnsOf = /* @__PURE__ */ __name((table2) => {
    let names = columns.get(table2);
    if (!names) {
      names = new Set(
        sql2.exec(`PRAGMA table_info(${table2})`).toArray().map((c) => c.name.toLowerCase())
      );
      columns.set(table2, names);
    }
    return names;
  }, "columnsOf");
  storage.transactionSync(() => {
    for (let version = from + 1; version <= target; version++) {
      const statements = migrations[version];
      if (!statements) throw new Error(`no migration to schema ${version}`);
      for (const statement of statements) {
        const adds = addedColumn(statement);
        if (adds && columnsOf(adds.table).has(adds.column)) continue;
        sql2.exec(statement);
        if (adds) columnsOf(adds.table).add(adds.column);
      }
    }
    const marked = columnsOf("record").has("written_at") ? ", written_at = updated_at" : "";
    sql2.exec(
      `UPDATE record SET schema_version = ?1${marked} WHERE schema_version IS NOT ?1${marked ? " OR written_at IS NOT updated_at" : ""}`,
      stamp
    );
  });
  return target;
}
__name(migrate, "migrate");
function readRecordRow(storage) {
  try {
    return storage.sql.exec("SELECT * FROM record").toArray()[0];
  } catch (err) {
    if (String(err).includes("no such table")) return void 0;
    throw err;
  }
}
__name(readRecordRow, "readRecordRow");
function makeSchema(storage) {
  try {
    migrate(storage, true, 0);
    return 0;
  } catch {
    const from = storedVersion(storage.sql);
    migrate(storage, true, from);
    return from;
  }
}
__name(makeSchema, "makeSchema");

// src/record/slices.ts
var Slices = class {
  static {
    __name(this, "Slices");
  }
  #writer;
  #owners = /* @__PURE__ */ new Map();
  constructor(writer) {
    this.#writer = writer;
  }
  /** The writer of one part's columns; it refuses any other column. */
  slice(part, columns) {
    for (const column of columns) {
      const owner = this.#owners.get(column);
      if (owner !== void 0 && owner !== part) throw new Error(`record column ${column} belongs to ${owner}, not ${part}`);
      this.#owners.set(column, part);
    }
    const mine = new Set(columns);
    const own = /* @__PURE__ */ __name((fields) => {
      for (const key of Object.keys(fields)) if (!mine.has(key)) throw new Error(`${part} may not write ${key}`);
      return fields;
    }, "own");
    return {
      update: /* @__PURE__ */ __name((fields) => this.#writer.update(own(fields)), "update"),
      later: /* @__PURE__ */ __name((fields) => this.#writer.later(own(fields)), "later")
    };
  }
  /** Which part owns each column (for the test that every mutable column has exactly one). */
  get owners() {
    return this.#owners;
  }
};

// src/record/row.ts
var MAX_AUDIT_ENTRIES = 200;
function newRecordRow(identity) {
  return {
    ...identity,
    wrong_otps: 0,
    unconfirmed_otps: 0,
    otp_sends: 0,
    last_otp_sent_at: 0,
    resend_wait_ms: 0,
    pending_op: null,
    pending_otp: 0,
    pending_since: 0,
    pending_request_id: null,
    pending_actor: null,
    reconcile_attempts: 0,
    event_seq: 0,
    edge_closed: 0,
    suspect_since: 0,
    suspect_reads: 0,
    suspect_otp: 0,
    erased: 0,
    audit: "[]",
    answer: null,
    owed_completion: null,
    // A record created (or rebuilt) held has been held since then, as far as the gateway knows.
    held_at: identity.state === 5 ? identity.created_at : 0,
    expiry: null,
    fiscal: null,
    fiscal_since: 0,
    fiscal_reads: 0,
    fiscal_listed: 1,
    clock_offset: 0,
    events: "[]",
    events_logged: 0,
    keys: null
  };
}
__name(newRecordRow, "newRecordRow");

// src/record/trail-rows.ts
var entryOf = /* @__PURE__ */ __name(([at, op, actor, request_id, outcome, state]) => ({ at, op, actor, request_id, outcome, state }), "entryOf");
var TrailRows = class {
  static {
    __name(this, "TrailRows");
  }
  #writer;
  constructor(writer) {
    this.#writer = writer;
  }
  /** Appends an entry, with the record's state as it is now. */
  add(entry) {
    const row = this.#writer.row();
    if (!row) return;
    const entries = JSON.parse(row.audit);
    entries.push([entry.at, entry.op, entry.actor, entry.request_id, entry.outcome, row.state]);
    this.#writer.write(JSON.stringify(entries.slice(-MAX_AUDIT_ENTRIES)));
  }
  /**
   * Rule 15: the entries of the trail not yet in the audit trail in R2, each
   * with its place among the entries of its millisecond (its id's last part),
   * oldest first; none when every entry is exported. The last exported entry
   * carries a seventh element, 1 (an older release reads past it and keeps
   * it): every entry before it is exported too.
   */
  toExport() {
    const row = this.#writer.row();
    if (!row) return [];
    const tuples = JSON.parse(row.audit);
    let from = 0;
    for (let i = tuples.length - 1; i >= 0; i--) {
      if (tuples[i][6] === 1) {
        from = i + 1;
        break;
      }
    }
    const seen = /* @__PURE__ */ new Map();
    const out = [];
    tuples.forEach((tuple, i) => {
      const n = seen.get(tuple[0]) ?? 0;
      seen.set(tuple[0], n + 1);
      if (i < from) return;
      out.push({ entry: entryOf(tuple), n, tuple });
    });
    return out;
  }
  /**
   * These entries (the last of what toExport gave) are in the audit trail in
   * R2: the mark moves to it, written with the row's next write (or the
   * alarm's at the latest), as the drain's mark is.
   */
  markExported(last) {
    const row = this.#writer.row();
    if (!row) return;
    const tuples = JSON.parse(row.audit);
    let at = -1;
    for (let i = tuples.length - 1; i >= 0; i--) {
      const t = tuples[i];
      if (t[0] === last[0] && t[1] === last[1] && t[3] === last[3] && t[4] === last[4]) {
        at = i;
        break;
      }
    }
    if (at < 0) return;
    const marked = tuples.map((t, i) => i === at ? [...t.slice(0, 6), 1] : t.slice(0, 6));
    this.#writer.defer({ audit: JSON.stringify(marked) });
  }
  entries() {
    const row = this.#writer.row();
    if (!row) return [];
    return JSON.parse(row.audit).map(entryOf);
  }
};

// src/record/store.ts
var RecordStore = class {
  static {
    __name(this, "RecordStore");
  }
  #storage;
  #row = null;
  #ready = false;
  /** Bumped by every write of the row, so a read that began before one never overwrites it. */
  #version = 0;
  /** Inside `change`: the row's fields written so far, flushed as one UPDATE at its end. */
  #batch = null;
  /** Fields the copy holds and storage not yet, written with the row's next write, at the latest by the alarm (`defer`). */
  #deferred = {};
  /** Fields the copy holds and storage not yet, written with the row's next write if one comes (a slice's `later`). */
  #lazy = {};
  /** The outbox, in the row: every event of the record and how many are logged. */
  outbox;
  /** The audit trail, in the row: its entries and how far their export has come. */
  trail;
  /** Which part owns which column. */
  #slices = new Slices({ update: /* @__PURE__ */ __name((fields) => this.#update(fields), "update"), later: /* @__PURE__ */ __name((fields) => this.#later(fields), "later") });
  /** The last body parsed by parsedBody(), with its text. */
  #parsed = null;
  /**
   * The `keys` column as stored (src/record/key-texts.ts): the copy
   * holds the keys' answers whole, the column may hold them as parts of the
   * row's texts, like the events' bodies.
   */
  #keysStored = null;
  constructor(storage) {
    this.#storage = storage;
    this.outbox = new OutboxRows({ write: /* @__PURE__ */ __name(() => this.#eventsChanged(), "write"), defer: /* @__PURE__ */ __name((fields) => this.#defer(fields), "defer") });
    this.trail = new TrailRows({ row: /* @__PURE__ */ __name(() => this.#row, "row"), write: /* @__PURE__ */ __name((audit2) => this.#auditChanged(audit2), "write"), defer: /* @__PURE__ */ __name((fields) => this.#defer(fields), "defer") });
  }
  get version() {
    return this.#version;
  }
  /** The row as last read or written; null before the record exists. */
  get current() {
    return this.#row;
  }
  /**
   * The record. Read from storage once per incarnation: after that this
   * object is its only writer (a Durable Object is single-threaded, and every
   * write goes through `change`/`update`, which keep the copy in step and put
   * it back if a step fails), so the copy is the stored row.
   */
  load() {
    if (this.#row) return this.#row;
    let found = readRecordRow(this.#storage);
    let migrated = false;
    if (!this.#ready && found && !isSettled(found.schema_version) && !(found.schema_version === OLDEST_READER_VERSION && asWritten(found))) {
      migrate(this.#storage, false, found.schema_version);
      found = readRecordRow(this.#storage);
      migrated = true;
    }
    if (found === void 0) return null;
    this.#ready = true;
    const { schema_version: _version, written_at: _written, keys: stored, ...rest } = found;
    const row = { ...rest, keys: keysFromColumn(stored, rest) };
    this.outbox.know(row);
    this.#row = row;
    this.#keysStored = stored ?? null;
    if (migrated && keysColumn(row.keys, row) !== this.#keysStored) this.#flush({ keys: row.keys });
    return this.#row;
  }
  /**
   * Deletes everything this object stored (rule 10): its SQLite tables, the
   * only complete removal (its alarm is the Alarm's to delete: src/record/end.ts).
   * The in-memory copies go with them, so the object answers as one that
   * never held a record.
   */
  async deleteAll() {
    await this.#storage.deleteAll();
    this.#row = null;
    this.#ready = false;
    this.#deferred = {};
    this.#lazy = {};
    this.#keysStored = null;
    this.outbox.forget();
    this.#version++;
  }
  /** Creates the record (schema, row, audit entry and first event in one step). Idempotent. */
  create(row, then) {
    if (this.#row) return;
    const from = this.#ready ? CURRENT_SCHEMA_VERSION : makeSchema(this.#storage);
    this.#ready = true;
    if (from !== 0 && this.load()) return;
    try {
      this.#storage.transactionSync(() => {
        this.#row = { ...row, updated_at: row.created_at };
        this.outbox.know(this.#row);
        this.#batch = {};
        try {
          then();
        } finally {
          this.#batch = null;
        }
        const final = { ...this.#row, events: this.outbox.column(this.#row) };
        this.#row = final;
        const stored = { ...final, keys: keysColumn(final.keys, final) };
        const columns = Object.keys(stored);
        this.#storage.sql.exec(
          `INSERT INTO record (singleton, ${columns.join(", ")}, written_at) VALUES (1, ${columns.map(() => "?").join(", ")}, ?)`,
          ...Object.values(stored),
          final.updated_at
        );
        this.#keysStored = stored.keys;
      });
    } catch (err) {
      this.#row = null;
      this.outbox.forget();
      throw err;
    }
  }
  /** The row's body parsed (do not change it): parsed once per body read or written, not on every use. */
  parsedBody() {
    const text2 = this.#row.body;
    if (this.#parsed?.text !== text2) this.#parsed = { text: text2, value: JSON.parse(text2) };
    return this.#parsed.value;
  }
  /**
   * Runs `step` as one synchronous transaction: every write in it lands
   * together or not at all, and the row's changed fields are written by a
   * single UPDATE at its end. If it fails, the in-memory copies are put back
   * as they were, like the storage.
   */
  change(step) {
    if (this.#batch) return step();
    const row = this.#row;
    const outbox = this.outbox.snapshot();
    const deferred = this.#deferred;
    const lazy = this.#lazy;
    const keysStored = this.#keysStored;
    try {
      return this.#storage.transactionSync(() => {
        this.#batch = {};
        try {
          const result = step();
          this.#flush(this.#batch);
          return result;
        } finally {
          this.#batch = null;
        }
      });
    } catch (err) {
      this.#row = row;
      this.outbox.restore(outbox);
      this.#deferred = deferred;
      this.#lazy = lazy;
      this.#keysStored = keysStored;
      throw err;
    }
  }
  /** Fields waiting for the row's next write (the drain's mark): there is something to write. */
  get owesWrite() {
    return Object.keys(this.#deferred).length > 0;
  }
  /** Writes what waits for the row's next write, now (one UPDATE), when nothing else will soon enough. */
  writeDeferred() {
    if (this.owesWrite && this.#row) this.#flush({});
  }
  /**
   * Writes now what the copy holds and storage not yet (a slice's `later`,
   * the drain's mark), with no change of the record: its time (updated_at)
   * stays. For the record's own clock (src/shared/clock.ts), which moves the time
   * every window counts in and must not itself count as a change.
   */
  writeUnchanged() {
    if (this.#row) this.#flush({});
  }
  /** The writer of one part's columns (its slice of the row): src/record/slices.ts. */
  slice(part, columns) {
    return this.#slices.slice(part, columns);
  }
  get owners() {
    return this.#slices.owners;
  }
  /** Writes the fields that differ from the stored row (at the end of the change, inside one). */
  #update(fields) {
    const current = this.#row;
    const entries = Object.entries(fields).filter(([key, value]) => value !== void 0 && current[key] !== value);
    if (entries.length === 0) return;
    const before = this.#row;
    this.#row = { ...this.#row, ...Object.fromEntries(entries), updated_at: clock.now() };
    this.#version++;
    if (this.#batch) Object.assign(this.#batch, Object.fromEntries(entries));
    else {
      try {
        this.#flush(Object.fromEntries(entries));
      } catch (err) {
        this.#row = before;
        throw err;
      }
    }
  }
  /** The outbox's events changed: the column is written with the change in hand, encoded by #flush against the row as written. */
  #eventsChanged() {
    if (this.#batch) this.#batch.events = this.#row.events;
    else this.#flush({ events: this.#row.events });
  }
  /**
   * The trail changed. Not a change of the record: it moves neither
   * updated_at nor the version. Inside a change, its one UPDATE at the end
   * takes it; inside create, the INSERT takes the row's audit.
   */
  #auditChanged(audit2) {
    this.#row = { ...this.#row, audit: audit2 };
    if (this.#batch) this.#batch.audit = audit2;
    else this.#flush({ audit: audit2 });
  }
  /** A slice's fields worth no write of their own: written with the row's next write if one comes. */
  #later(fields) {
    this.#row = { ...this.#row, ...fields };
    Object.assign(this.#batch ?? this.#lazy, fields);
  }
  /** Columns written with the row's next write (inside a change: with its UPDATE); the copy holds them now. */
  #defer(fields) {
    this.#row = { ...this.#row, ...fields };
    Object.assign(this.#batch ?? this.#deferred, fields);
  }
  /**
   * One UPDATE of these fields, with whatever waited for the row's next
   * write. The events' bodies are stored as parts of the row's body and
   * answer (src/record/event-texts.ts), so they are encoded again against
   * the row as written whenever either changes, or they do; so is the
   * `keys` column (src/record/key-texts.ts), which the copy holds
   * whole.
   */
  #flush(fields) {
    const pending = { ...this.#lazy, ...this.#deferred, ...fields };
    if ("events" in pending || "body" in pending || "answer" in pending) {
      const events = this.outbox.column(this.#row);
      if (events !== this.#row.events || "events" in pending) {
        pending.events = events;
        this.#row = { ...this.#row, events };
      }
    }
    if ("keys" in pending || "body" in pending || "answer" in pending) {
      const keys = keysColumn(this.#row.keys, this.#row);
      if (keys !== this.#keysStored) pending.keys = keys;
      else delete pending.keys;
    }
    const entries = Object.entries(pending);
    if (entries.length === 0) return;
    this.#storage.sql.exec(
      `UPDATE record SET ${entries.map(([key]) => `${key} = ?`).join(", ")}, updated_at = ?, written_at = ?`,
      ...entries.map(([, value]) => value),
      this.#row.updated_at,
      this.#row.updated_at
    );
    if ("keys" in pending) this.#keysStored = pending.keys;
    this.#deferred = {};
    this.#lazy = {};
  }
};

// src/record/end.ts
var END_RECHECK_MS = 36e5;
var RecordEnd = class {
  static {
    __name(this, "RecordEnd");
  }
  #store;
  #alarm;
  #env;
  #retentionMs;
  #fiscal;
  /**
   * Not before this (ms): the log still held events of the record when it last
   * asked. In memory: a new incarnation asks once more, one D1 read.
   */
  #notBefore = 0;
  constructor(store2, alarm, env, retentionMs, fiscal) {
    this.#store = store2;
    this.#alarm = alarm;
    this.#env = env;
    this.#retentionMs = retentionMs;
    this.#fiscal = fiscal;
  }
  /** When this record is to be deleted, or null while it is not final or owes something. */
  deleteAt(rec) {
    const at = recordDeletionAt(
      {
        state: rec.state,
        edgeClosed: closedAtEdgeOf(rec),
        pending: rec.pending_op !== null,
        suspect: rec.suspect_since !== 0,
        unsentEvents: this.#store.outbox.hasUnsent(),
        fiscalPending: this.#fiscal.isPending(rec),
        listingOwed: this.#fiscal.owesListing(rec),
        changedAt: rec.updated_at
      },
      this.#retentionMs
    );
    return at === null ? null : Math.max(at, this.#notBefore);
  }
  /**
   * Deletes the record if its time has come (the alarm's first question) and
   * the event log holds none of its events. `idle` says whether the object
   * is still free of operations: one may begin while the log is asked, and
   * the record is then judged again as that operation left it.
   */
  async deleteIfDue(rec, now, idle) {
    const at = this.deleteAt(rec);
    if (at === null || at > now) return false;
    let logged;
    try {
      logged = await recordHasLoggedEvents(this.#env, rec.id, this.#store.outbox.eventIds());
    } catch (err) {
      logged = true;
      log("warn", "record_end_check_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    }
    if (logged) {
      this.#notBefore = now + Math.min(END_RECHECK_MS, this.#retentionMs);
      log("info", "record_end_waits_for_events", { id: rec.id, kind: rec.kind, next_check_at: this.#notBefore });
      return false;
    }
    const current = this.#store.current;
    const still = current === null || !idle() ? null : this.deleteAt(current);
    if (still === null || still > now) return false;
    this.#alarm.set(null);
    await this.#store.deleteAll();
    this.#alarm.fired();
    this.#notBefore = 0;
    log("info", "record_deleted", { id: rec.id, kind: rec.kind, state: rec.state, changed_at: rec.updated_at });
    return true;
  }
  /**
   * Rebuilds a deleted record from the upstream for the partner; null when
   * there is nothing to rebuild (the upstream has no such record, or one too
   * young to have been deleted) or the caller is not the partner.
   */
  async rebuild(target, caller, upstream, requestId2) {
    if (!target || caller.kind !== "partner") return null;
    const kind = kindNamed(target.kind);
    const read = await kind.read(upstream, target.id);
    if (!read.ok) return read.failure.code === "receipt_not_found" ? null : read.failure;
    const body = read.value;
    const now = clock.now();
    if (kind.idOf(body) !== target.id || kind.createdAtOf(body) > now - this.#retentionMs) return null;
    const state = kind.stateOf(body);
    const merchant2 = kind.merchantOfBody(body);
    const ended = expiryRuleOf(target.kind, state);
    const row = newRecordRow({
      kind: target.kind,
      id: target.id,
      tid: body.tid,
      upstream_tid: body.tid,
      owner: ownerOf(caller),
      is_hold: state === 5 ? 1 : 0,
      qr_merchant: merchant2 !== void 0 && readConfig(this.#env).qrMerchantIds.has(merchant2) ? 1 : 0,
      is_verify: body.is_verify ? 1 : 0,
      state,
      body: JSON.stringify(body),
      created_at: now
    });
    const closed = ended ? { expiry: ended.reason, edge_closed: 1 } : {};
    this.#store.create({ ...row, ...fiscalColumnsOf(target.kind, body, now), ...closed, event_seq: now }, () => {
      this.#store.trail.add({ at: now, op: "rebuild", actor: ownerOf(caller), request_id: requestId2, outcome: "ok" });
    });
    log("info", "record_rebuilt", { request_id: requestId2, id: target.id, kind: target.kind, state, closed_at_edge: ended !== null });
    return this.#store.current;
  }
};

// src/record/expiry.ts
var Expiry = class {
  static {
    __name(this, "Expiry");
  }
  #store;
  #slice;
  #outbox;
  #ledger;
  #windows;
  constructor(store2, outbox, ledger, windows) {
    this.#store = store2;
    this.#slice = store2.slice("expiry", ["expiry"]);
    this.#outbox = outbox;
    this.#ledger = ledger;
    this.#windows = windows;
  }
  /**
   * When the record expires (or the cancel of an expiry decided is owed
   * again), or null: what the alarm is set for. A cancel the upstream was too
   * busy for is tried again with the reconciler's backoff.
   */
  dueAt(rec, phase, now) {
    const at = this.#expiresAt(rec, phase);
    if (at === null) return null;
    return rec.reconcile_attempts > 0 ? Math.max(at, now + backoffMs(rec.reconcile_attempts)) : at;
  }
  /** Past its window: the alarm (whenever it fires) or the next operation expires it. */
  isDue(rec, phase, now) {
    const at = this.#expiresAt(rec, phase);
    return at !== null && at <= now;
  }
  #expiresAt(rec, phase) {
    return expiresAt(
      {
        kind: rec.kind,
        phase,
        state: rec.state,
        expiry: rec.expiry,
        edgeClosed: closedAtEdgeOf(rec),
        createdAt: rec.created_at,
        // A record held before the gateway kept the time (none since schema 2) counts from its creation.
        heldAt: rec.held_at || rec.created_at,
        suspect: rec.suspect_since !== 0
      },
      this.#windows
    );
  }
  /** The gateway decided to end the record for this reason; its cancel is about to leave. Inside a change. */
  mark(reason) {
    this.#slice.update({ expiry: reason });
  }
  /** Nothing was decided after all (the upstream was busy, or refused because it changed meanwhile). Inside a change. */
  unmark() {
    this.#slice.update({ expiry: null });
  }
  /**
   * Closes the record at the edge (lifecycle's closedAtEdge): a transfer (no
   * cancel upstream), or a receipt whose cancel the upstream refused for good
   * (`refused`) or the table refuses (a QR merchant). Its event says so: the
   * object shows what the upstream shows, for the partner to ask its support.
   * Inside a change.
   */
  closeAtEdge(reason, requestId2, refused) {
    const rec = this.#store.current;
    this.#slice.update({ expiry: reason });
    if (refused) this.#ledger.cancelRefused();
    this.#outbox.emit(KINDS[rec.kind].events.expiredAtEdge, rec.state, requestId2, clock.now(), { reason, closed_at_edge: true });
  }
};

// src/record/keys.ts
var KEYS_COLUMNS = ["keys"];
var sameKey = /* @__PURE__ */ __name((caller, operation2, key) => ([c, o, k]) => c === caller && o === operation2 && k === key, "sameKey");
var Keys = class {
  static {
    __name(this, "Keys");
  }
  #storage;
  #store;
  #row;
  constructor(storage, store2) {
    this.#storage = storage;
    this.#store = store2;
    this.#row = store2.slice("keys", KEYS_COLUMNS);
  }
  /** The keys the row holds (none when the column is empty: a record no key was used on, or keyed only by a release before). */
  #entries() {
    const text2 = this.#store.current?.keys;
    return text2 ? JSON.parse(text2) : [];
  }
  /** The row's entry for this caller's key for this operation, as the table's row would read. */
  #inRow(caller, operation2, key) {
    const entry = this.#entries().find(sameKey(caller, operation2, key));
    if (!entry) return void 0;
    const [, , , fingerprint2, request_id, status, answer, headers] = entry;
    return { fingerprint: fingerprint2, request_id, status, answer, headers };
  }
  /** Whether a release before this one made the record's `idempotency` table (this code makes none). */
  #hasTable() {
    return this.#storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'").toArray().length > 0;
  }
  /**
   * The row's keys with this one put in place of the caller's entry for it:
   * written now (inside a change, with its one UPDATE), or with the row's
   * next write (an opened key: the note's, before its call leaves).
   */
  #put(entry, now) {
    const same = sameKey(entry[0], entry[1], entry[2]);
    const others = this.#entries().filter((other) => !same(other));
    const keys = JSON.stringify([...others, entry]);
    if (now) this.#row.update({ keys });
    else this.#row.later({ keys });
  }
  /** What this caller's key says of a request that brings it, for this operation. */
  lookup(caller, operation2, request) {
    const inTable = !this.#hasTable() ? void 0 : this.#storage.sql.exec(
      "SELECT fingerprint, request_id, status, answer, headers FROM idempotency WHERE caller = ? AND operation = ? AND key = ?",
      caller,
      operation2,
      request.key
    ).toArray()[0];
    const inRow = this.#inRow(caller, operation2, request.key);
    const row = inRow && (inTable === void 0 || inTable.answer === null) ? inRow : inTable;
    if (!row) return { kind: "new" };
    if (!request.fingerprints.includes(row.fingerprint)) return { kind: "reused" };
    if (row.status === null || row.answer === null) return { kind: "unknown", requestId: row.request_id };
    return {
      kind: "replay",
      answer: { status: row.status, body: row.answer, headers: row.headers ? JSON.parse(row.headers) : {} }
    };
  }
  /** The first request with this key is about to call the upstream: its key is kept, with no answer yet (in the note's commit). */
  open(caller, operation2, request, requestId2) {
    this.#put([caller, operation2, request.key, request.fingerprints[0], requestId2, null, null, null, clock.now()], false);
  }
  /** The answer the key's request got, kept (in the outcome's commit). */
  answer(caller, operation2, request, requestId2, answer) {
    const headers = Object.keys(answer.headers).length ? JSON.stringify(answer.headers) : null;
    const opened = this.#entries().find(sameKey(caller, operation2, request.key));
    const entry = [
      caller,
      operation2,
      request.key,
      request.fingerprints[0],
      opened?.[4] ?? requestId2,
      answer.status,
      answer.body,
      headers,
      opened?.[8] ?? clock.now()
    ];
    this.#put(entry, true);
  }
  /**
   * Rule 10's erasure: every answer kept so far, in the table and in the
   * row, with the owner's personal data erased, so a repeat shows the values
   * masked. A record no key was used on has no table, and gets none. Inside
   * a change.
   */
  erase() {
    const entries = this.#entries();
    const inRow = entries.map((entry) => {
      const [caller, operation2, key, fingerprint2, requestId2, status, answer, headers, createdAt] = entry;
      return answer === null ? entry : [caller, operation2, key, fingerprint2, requestId2, status, erasePersonalJson(answer), headers, createdAt];
    });
    if (inRow.some((entry, i) => entry[6] !== entries[i][6])) this.#row.update({ keys: JSON.stringify(inRow) });
    if (!this.#hasTable()) return;
    const kept = this.#storage.sql.exec(
      "SELECT caller, operation, key, answer FROM idempotency WHERE answer IS NOT NULL"
    ).toArray();
    for (const row of kept) {
      const erased = erasePersonalJson(row.answer);
      if (erased === row.answer) continue;
      this.#storage.sql.exec(
        "UPDATE idempotency SET answer = ? WHERE caller = ? AND operation = ? AND key = ?",
        erased,
        row.caller,
        row.operation,
        row.key
      );
    }
  }
  /** The request did nothing the key should remember (the upstream was busy and did nothing): a retry with it goes through. */
  forget(caller, operation2, request) {
    const entries = this.#entries();
    const same = sameKey(caller, operation2, request.key);
    const kept = entries.filter((entry) => !same(entry));
    if (kept.length < entries.length) this.#row.update({ keys: kept.length ? JSON.stringify(kept) : null });
  }
};

// src/record/late-reads.ts
var LATE_READ_COLUMNS = ["suspect_since", "suspect_reads", "suspect_otp"];
var LateReads = class {
  static {
    __name(this, "LateReads");
  }
  #store;
  #slice;
  #schedule;
  constructor(store2, schedule) {
    this.#store = store2;
    this.#slice = store2.slice("late-reads", LATE_READ_COLUMNS);
    this.#schedule = schedule;
  }
  /** A call that left at `since` has an unknown outcome: read again on the schedule. Inside a change. */
  suspect(since, unconfirmedOtp) {
    this.#slice.update({ suspect_since: since, suspect_reads: 0, suspect_otp: unconfirmedOtp ? 1 : 0 });
  }
  isSuspect(rec = this.#store.current) {
    return rec.suspect_since !== 0;
  }
  /** When the next late read is due, or null. */
  dueAt(rec = this.#store.current) {
    return lateReadAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#schedule);
  }
  isDue(rec, now = clock.now()) {
    const at = this.dueAt(rec);
    return at !== null && at <= now;
  }
  /**
   * A look at the upstream, which showed `state`, counts as every late read
   * due by now. Answers whether an OTP counted as an unconfirmed guess is
   * proven right (the record shows paid): the ledger then no longer counts it.
   * Inside a change.
   */
  looked(state) {
    const rec = this.#store.current;
    if (rec.suspect_since === 0) return false;
    const done = lateReadsDoneAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#schedule, clock.now());
    const proven = rec.suspect_otp === 1 && isPaid(state);
    this.#slice.update({ suspect_since: done.since, suspect_reads: done.reads, suspect_otp: proven || done.since === 0 ? 0 : rec.suspect_otp });
    return proven;
  }
};

// src/record/otp-ledger.ts
var LEDGER_COLUMNS = ["wrong_otps", "unconfirmed_otps", "otp_sends", "last_otp_sent_at", "resend_wait_ms", "edge_closed"];
var OtpLedger = class {
  static {
    __name(this, "OtpLedger");
  }
  #store;
  #slice;
  #outbox;
  #env;
  constructor(store2, outbox, env) {
    this.#store = store2;
    this.#slice = store2.slice("otp-ledger", LEDGER_COLUMNS);
    this.#outbox = outbox;
    this.#env = env;
  }
  counts(rec = this.#store.current) {
    return { wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps };
  }
  guesses(rec = this.#store.current) {
    return guessesOf(this.counts(rec));
  }
  attemptsLeft() {
    return Math.max(0, MAX_GUESSES - this.guesses());
  }
  /** Counts one OTP's verdict; the third failed guess exhausts the record and is an event. Inside a change. */
  count(verdict, requestId2, upstreamSaysExhausted = false) {
    const rec = this.#store.current;
    const before = this.counts(rec);
    let counts = countGuess(before, verdict);
    if (upstreamSaysExhausted && guessesOf(counts) < MAX_GUESSES) counts = { ...counts, wrong: MAX_GUESSES - counts.unconfirmed };
    this.#slice.update({ wrong_otps: counts.wrong, unconfirmed_otps: counts.unconfirmed });
    if (guessesOf(before) < MAX_GUESSES && guessesOf(counts) >= MAX_GUESSES) {
      this.#outbox.emit(exhaustedEvent(rec.kind), rec.state, requestId2);
      note("warn", "otp_attempts_exhausted", { id: rec.id, kind: rec.kind, wrong: counts.wrong, unconfirmed: counts.unconfirmed });
      metric(this.#env, "otp_exhausted", { operation: rec.kind });
    }
  }
  /** An unconfirmed guess turned out right (the record shows paid): it no longer counts. Inside a change. */
  provenRight() {
    const rec = this.#store.current;
    this.#slice.update({ unconfirmed_otps: Math.max(0, rec.unconfirmed_otps - 1) });
  }
  /** The upstream refused for good to cancel the record its guesses ended: no more cancels are sent; it is closed at the edge. Inside a change. */
  cancelRefused() {
    this.#slice.update({ edge_closed: 1 });
  }
  /** Why no OTP may be sent now (rule 6), or null. */
  sendRefusal(now) {
    const rec = this.#store.current;
    const refusal2 = otpSendRefusal({ sends: rec.otp_sends, lastSentAt: rec.last_otp_sent_at, waitMs: rec.resend_wait_ms }, now);
    return refusal2 ? fail(refusal2.code, refusal2.message, { retry_after: refusal2.retryAfterSeconds }).error : null;
  }
  /** An OTP was sent (or may have been: an unknown outcome may have sent an SMS). Inside a change. */
  countSend(wait) {
    const rec = this.#store.current;
    this.#slice.update({
      otp_sends: rec.otp_sends + 1,
      last_otp_sent_at: clock.now(),
      resend_wait_ms: wait ?? Math.max(rec.resend_wait_ms, 6e4)
    });
  }
  /**
   * A restored record keeps the guesses and sends counted since the time it
   * was restored to (rules 2 and 6 hold across a restore), and a cancel the
   * upstream refused for good: each the larger of the two. Inside a change.
   */
  carry(counted) {
    const rec = this.#store.current;
    this.#slice.update({
      wrong_otps: Math.max(rec.wrong_otps, counted.wrong_otps),
      unconfirmed_otps: Math.max(rec.unconfirmed_otps, counted.unconfirmed_otps),
      otp_sends: Math.max(rec.otp_sends, counted.otp_sends),
      last_otp_sent_at: Math.max(rec.last_otp_sent_at, counted.last_otp_sent_at),
      edge_closed: Math.max(rec.edge_closed, counted.edge_closed)
    });
  }
};

// src/record/event.ts
function eventPayload(fields) {
  const id = newEventId(fields.at);
  const head2 = { id, type: fields.type, created: fields.at, sequence: fields.sequence, request_id: fields.requestId };
  const cause = fields.cause ? `,${JSON.stringify(fields.cause).slice(1, -1)}` : "";
  const data = `{"object_type":${JSON.stringify(kindOfEvent(fields.type))},"object":${fields.objectJson},"owner":${JSON.stringify(eventOwner(fields.owner))},"previous_state":${JSON.stringify(fields.previousState)}${cause}}`;
  return { id, payload: `${JSON.stringify(head2).slice(0, -1)},"data":${data}}` };
}
__name(eventPayload, "eventPayload");

// src/record/outbox.ts
var DRAIN_BATCH = 50;
var DRAIN_FALLBACK_MS = 1e4;
var DRAIN_FALLBACK_LATEST_MS = 3 * DRAIN_FALLBACK_MS;
var MARK_WAIT_MS = 6e4;
var Outbox = class {
  static {
    __name(this, "Outbox");
  }
  #store;
  /** The outbox's column in the row: the last event's sequence. */
  #sequence;
  #env;
  /** Drains that failed in a row (the outbox's backoff). */
  #failures = 0;
  /** A drain is under way (one at a time). */
  #draining = false;
  constructor(store2, env) {
    this.#store = store2;
    this.#sequence = store2.slice("outbox", ["event_seq"]);
    this.#env = env;
  }
  /** Writes an event into the outbox, as part of the change it reports. Inside a change. */
  emit(type, previousState, requestId2, at = clock.now(), cause = null) {
    const rec = this.#store.current;
    const sequence = rec.event_seq + 1;
    const event = eventPayload({ type, sequence, requestId: requestId2, objectJson: rec.body, owner: rec.owner, previousState, at, cause });
    this.#sequence.update({ event_seq: sequence });
    this.#store.outbox.enqueue(event.id, event.payload);
  }
  /**
   * Numbers the next event after `sequence` at least (a restored record's:
   * its receivers may have applied events up to it, and ignore an event
   * whose sequence is not above the last they applied). Inside a change.
   */
  continueAfter(sequence) {
    if (this.#store.current.event_seq < sequence) this.#sequence.update({ event_seq: sequence });
  }
  /** Rule 10's erasure: every event this record keeps, its personal data erased (later events carry the erased body). Inside a change. */
  erase() {
    this.#store.outbox.rewrite(erasePersonalJson);
  }
  /** Events are owed and no drain has failed lately: worth draining at once. */
  get ready() {
    return this.#failures === 0 && !this.#draining && this.#store.outbox.hasUnsent();
  }
  /**
   * When the alarm should come back for owed events, or null; and the latest
   * an alarm already set may be and still do (the fallback is a backstop, not
   * a deadline: DRAIN_FALLBACK_LATEST_MS; after a failed drain, up to twice
   * its backoff saves a write).
   */
  dueAt(now) {
    if (!this.#store.outbox.hasUnsent()) return null;
    if (this.#failures === 0) return { at: now + DRAIN_FALLBACK_MS, latest: now + DRAIN_FALLBACK_LATEST_MS };
    const wait = backoffMs(this.#failures);
    return { at: now + wait, latest: now + 2 * wait };
  }
  /** Logs and queues the unsent events; marks them logged only once both succeeded. Never throws. */
  async drain() {
    if (this.#draining) return;
    const batch = this.#store.outbox.unsent(DRAIN_BATCH);
    if (batch.length === 0) return;
    this.#draining = true;
    try {
      await publishOutbox(
        this.#env,
        batch.map((entry) => ({ id: entry.event_id, payload: entry.body }))
      );
      this.#store.outbox.markSent(batch.map((entry) => entry.seq));
      this.#failures = 0;
    } catch (err) {
      this.#failures++;
      log("warn", "outbox_drain_failed", {
        id: this.#store.current?.id,
        events: batch.length,
        failures: this.#failures,
        error: err instanceof Error ? err.message : String(err)
      });
    } finally {
      this.#draining = false;
    }
  }
};

// src/record/recorder.ts
var RECORDER_COLUMNS = ["state", "body", "erased", "answer", "held_at"];
var Recorder = class {
  static {
    __name(this, "Recorder");
  }
  #store;
  #slice;
  #outbox;
  #ledger;
  #lateReads;
  #fiscal;
  constructor(store2, outbox, ledger, lateReads, fiscal) {
    this.#store = store2;
    this.#slice = store2.slice("recorder", RECORDER_COLUMNS);
    this.#outbox = outbox;
    this.#ledger = ledger;
    this.#lateReads = lateReads;
    this.#fiscal = fiscal;
  }
  /**
   * Stores a body the upstream answered: the new state and, if the state
   * changed, its event. A reduced (anonymous) answer is merged into the
   * stored body.
   */
  apply(body, requestId2, merged = this.merged(body)) {
    const rec = this.#store.current;
    const previous2 = rec.state;
    const state = body.state;
    const heldAt = state === STATE.held && previous2 !== STATE.held ? clock.now() : void 0;
    this.#slice.update({ state, body: merged, held_at: heldAt });
    if (this.#lateReads.looked(state)) this.#ledger.provenRight();
    const type = eventForStateChange(rec.kind, previous2, state);
    if (type) this.#outbox.emit(type, previous2, requestId2, clock.now(), gatewayCause(rec, state));
    this.#fiscal.observed(requestId2);
  }
  /** Stores the record a refusal came with, if the upstream sent it. */
  applyAfter(failure, requestId2) {
    const body = kindNamed(this.#store.current.kind).bodyOf(failure);
    if (body) this.apply(body, requestId2);
  }
  /** The stored body with an upstream answer laid over it (a reduced one lacks fields), showing the caller's tid: JSON text. */
  merged(body) {
    const rec = this.#store.current;
    const stored = this.#store.parsedBody();
    const laid = kindNamed(rec.kind).withTid({ ...stored, ...body }, rec.tid);
    return JSON.stringify(rec.erased === 1 ? erasePersonal(laid) : laid);
  }
  /**
   * The JSON text of an answer built from what the upstream sent (an
   * operation's, which its Idempotency-Key keeps): erased once the owner's
   * data is (rule 10), like every body stored, though the upstream still
   * sends the values.
   */
  answerOf(value) {
    return JSON.stringify(this.#store.current.erased === 1 ? erasePersonal(value) : value);
  }
  /** Erases the owner's personal data from the body and the create's answer, and from every body stored from now on. Inside a change. */
  erase() {
    const rec = this.#store.current;
    this.#slice.update({ erased: 1, body: erasePersonalJson(rec.body), answer: rec.answer === null ? null : erasePersonalJson(rec.answer) });
  }
};

// src/record/write-ahead.ts
var RECONCILE_WITHIN_MS = 6e4;
var ALARM_DELAY_MS = 5e3;
var noteLookBy = /* @__PURE__ */ __name((now, upstreamTimeoutMs) => Math.max(now + upstreamTimeoutMs + 1e3, now + RECONCILE_WITHIN_MS - upstreamTimeoutMs - ALARM_DELAY_MS), "noteLookBy");
var WRITE_AHEAD_COLUMNS = ["pending_op", "pending_otp", "pending_since", "pending_request_id", "pending_actor"];
var WriteAhead = class {
  static {
    __name(this, "WriteAhead");
  }
  #store;
  #note;
  #storage;
  #alarm;
  #upstreamTimeoutMs;
  /** When this incarnation's last note was written: a note of its own whose call has returned is no call in flight. */
  #notedAt = null;
  constructor(store2, storage, alarm, upstreamTimeoutMs) {
    this.#store = store2;
    this.#note = store2.slice("write-ahead", WRITE_AHEAD_COLUMNS);
    this.#storage = storage;
    this.#alarm = alarm;
    this.#upstreamTimeoutMs = upstreamTimeoutMs;
  }
  /**
   * Notes the call about to leave, durably: the note is written and flushed
   * before the request leaves (sync(); the output gate would hold the
   * request anyway), so a crash mid-call is reconciled with no caller. It
   * names who asked (`actor`, as the audit trail does): a lost call that the
   * gateway completes is decided again for that caller. `decided`: what
   * the caller decided before the call (rule 12's expiry), stored in the
   * note's one UPDATE (a row written, not two), so neither is durable
   * without the other.
   */
  async note(note2, decided) {
    const now = clock.now();
    this.#notedAt = now;
    this.#store.change(() => {
      decided?.();
      this.#note.update({
        pending_op: note2.op,
        pending_otp: note2.withOtp ? 1 : 0,
        pending_since: now,
        pending_request_id: note2.requestId,
        pending_actor: note2.actor
      });
    });
    if (!this.#alarm.setWithin(now, this.lookBy(now))) this.#alarm.set(this.deadline(now));
    await this.#storage.sync();
  }
  /**
   * The latest an alarm may be due and still reconcile a call noted at `now`
   * within rule 8's minute of a fault (a crash right after the note is the
   * earliest fault): the minute less the look's own read (up to
   * UPSTREAM_TIMEOUT_MS) and the alarm's own delay (ALARM_DELAY_MS), so
   * 45 s at production's 10 s timeout; never before the call's deadline.
   */
  lookBy(now) {
    return noteLookBy(now, this.#upstreamTimeoutMs);
  }
  /** When a call that leaves at `now` must have ended, answered or not. */
  deadline(now) {
    return now + this.#upstreamTimeoutMs + 1e3;
  }
  /**
   * A noted call may still be running upstream: an earlier incarnation noted
   * it (and stopped) and it could not have ended on its own by now. The alarm
   * looks at the upstream only after that (an alarm due earlier, set for
   * something else, is left in place by `note`).
   */
  mayStillRun(rec, now) {
    return rec.pending_op !== null && rec.pending_since !== this.#notedAt && now < rec.pending_since + this.#upstreamTimeoutMs + 1e3;
  }
  /**
   * A lost cancel's completion met a busy upstream, which did nothing: its
   * note is put back as it was, so the cancel stays owed to the caller who
   * asked and the alarm completes it again. Inside a change.
   */
  restore(lost) {
    this.#note.update({
      pending_op: "cancel",
      pending_otp: 0,
      pending_since: lost.since,
      pending_request_id: lost.requestId,
      pending_actor: lost.actor
    });
  }
  /** The call's outcome is being stored. Inside that change. */
  clear() {
    this.#note.update({ pending_op: null, pending_otp: 0, pending_since: 0, pending_request_id: null, pending_actor: null });
  }
};

// src/record/parts.ts
function recordParts(storage, env) {
  const { environment, upstreamTimeoutMs, holdEnabled, expiry: windows, fiscalReads } = readConfig(env);
  const store2 = new RecordStore(storage);
  const alarm = new Alarm(storage);
  const outbox = new Outbox(store2, env);
  const ledger = new OtpLedger(store2, outbox, env);
  const lateReads = new LateReads(store2, lateReadSchedule(environment));
  const fiscal = new FiscalWatch(store2, outbox, env, fiscalReads);
  const recorder = new Recorder(store2, outbox, ledger, lateReads, fiscal);
  const writeAhead = new WriteAhead(store2, storage, alarm, upstreamTimeoutMs);
  const reconciler = new Reconciler({ store: store2, ledger, recorder, writeAhead, lateReads, fiscal, upstreamTimeoutMs, holdEnabled, env });
  const end = new RecordEnd(store2, alarm, env, retentionPolicy(env).recordRetentionMs, fiscal);
  const completion = new Completion(store2, env, upstreamTimeoutMs);
  const keys = new Keys(storage, store2);
  const expiry = new Expiry(store2, outbox, ledger, windows);
  const audit2 = new AuditExport(store2, env);
  const time2 = store2.slice("clock", ["clock_offset"]);
  return { time: time2, audit: audit2, store: store2, alarm, outbox, ledger, lateReads, fiscal, recorder, writeAhead, reconciler, end, completion, keys, expiry };
}
__name(recordParts, "recordParts");

// src/record/record-time.ts
async function shiftRecordTime({ store: store2, time: time2, alarm, wake, stored }, byMs, fire) {
  const rec = stored();
  if (!rec) return null;
  const before = new Set(store2.outbox.eventIds());
  const offset = rec.clock_offset + byMs;
  time2.later({ clock_offset: offset });
  store2.writeUnchanged();
  alarm.moved();
  return inRecordTime(offset, async () => {
    if (fire) await wake.fired();
    else wake.arm({ drainNow: false, replace: true });
    const after = store2.current;
    if (!after || !stored()) return { now: clock.now(), state: null, ended: true, events: [] };
    const made = store2.outbox.eventIds().filter((id) => !before.has(id));
    const bodies = store2.outbox.eventBodies(made);
    const events = made.map((id) => JSON.parse(bodies[id] ?? "{}").type ?? "unknown");
    return { now: clock.now(), state: after.state, ended: false, events };
  });
}
__name(shiftRecordTime, "shiftRecordTime");

// src/record/views.ts
function auditTrailOf(store2) {
  const rec = store2.load();
  if (!rec) return null;
  const actor = /* @__PURE__ */ __name((who) => who.startsWith("partner:") ? "partner" : who, "actor");
  return {
    id: rec.id,
    kind: rec.kind,
    owner: eventOwner(rec.owner),
    entries: store2.trail.entries().map((entry) => ({ ...entry, actor: actor(entry.actor) }))
  };
}
__name(auditTrailOf, "auditTrailOf");
function consoleViewOf({ store: store2 }) {
  const trail = auditTrailOf(store2);
  const rec = store2.current;
  if (!trail || !rec) return null;
  const amount2 = kindNamed(rec.kind).amountOf(store2.parsedBody());
  return {
    ...trail,
    tid: rec.tid,
    upstreamTid: rec.upstream_tid,
    createdAt: rec.created_at,
    amount: typeof amount2 === "number" ? amount2 : null,
    now: clock.now(),
    aheadMs: rec.clock_offset
  };
}
__name(consoleViewOf, "consoleViewOf");
function backOfficeViewOf({ store: store2 }) {
  const trail = auditTrailOf(store2);
  const rec = store2.current;
  if (!trail || !rec) return null;
  return {
    ...trail,
    tid: rec.tid,
    createdAt: rec.created_at,
    updatedAt: rec.updated_at,
    state: rec.state,
    body: rec.body,
    eventIds: store2.outbox.eventIds(),
    fiscal: rec.fiscal,
    fiscalSince: rec.fiscal_since,
    fiscalReads: rec.fiscal_reads,
    erased: rec.erased === 1
  };
}
__name(backOfficeViewOf, "backOfficeViewOf");

// src/record/wake.ts
var NEWER_SCHEMA_RECHECK_MS = 15 * 6e4;
var Wake = class {
  static {
    __name(this, "Wake");
  }
  #parts;
  #moves;
  constructor(parts2, moves) {
    this.#parts = parts2;
    this.#moves = moves;
  }
  /** The alarm fired. */
  async fired() {
    const { store: store2, alarm, completion, end, reconciler, lateReads, fiscal, outbox, writeAhead, audit: audit2 } = this.#parts;
    alarm.fired();
    let standing = false;
    let rec;
    try {
      rec = store2.load();
    } catch (err) {
      if (!isNewerSchema(err)) throw err;
      log("warn", "record_schema_newer", { error: err.message });
      alarm.set(clock.now() + NEWER_SCHEMA_RECHECK_MS);
      return;
    }
    if (!rec) return;
    if (rec.owed_completion !== null) {
      await completion.settle(rec, clock.now());
      rec = store2.current ?? rec;
    }
    if (audit2.owed) await audit2.export();
    if (!this.#moves.busy && !audit2.owed && await end.deleteIfDue(rec, clock.now(), () => !this.#moves.busy)) return;
    try {
      const look = reconciler.needsReconcile(rec) || lateReads.isDue(rec) || fiscal.isDue(rec) || this.#moves.expiryDue();
      if (!this.#moves.busy && look && !writeAhead.mayStillRun(rec, clock.now())) {
        if (fiscal.isDue(rec)) {
          alarm.set(writeAhead.deadline(clock.now()));
          standing = true;
        }
        await this.#moves.reconcileAlone();
      }
      await outbox.drain();
      await audit2.export();
      await fiscal.sync();
    } catch (err) {
      log("error", "receipt_alarm_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    } finally {
      store2.writeDeferred();
      this.arm({ drainNow: false, replace: standing });
    }
  }
  /**
   * After every operation and alarm: events still owed are drained at once,
   * in the background (nobody's answer waits for them), and whatever is owed
   * has an alarm, so an eviction or a crash before the drain loses nothing.
   * An alarm already due early enough is left alone. A drain's mark waits
   * for the row's next write only while an alarm due soon would write it.
   * `replace`: the alarm set is one that stood for a read now stored, not
   * for anything due: it is set anew. `late`: a new alarm is set as late as
   * every window allows, not when the first is due (a create's: its drain
   * and its tid completion are done at once, the alarm only backs them up,
   * so it comes when the trail's export is due, and the authorize and the
   * pay that follow within it, 15 s and 25 s at the model's pace, ride it
   * rather than setting one of their own, src/record/write-ahead.ts).
   */
  arm({ drainNow = true, replace = false, late = false } = {}) {
    const { store: store2, alarm, completion, end, reconciler, outbox, expiry, fiscal, audit: audit2 } = this.#parts;
    const rec = store2.current;
    if (!rec) return;
    const now = clock.now();
    const reconcileAt = earliest(earliest(reconciler.nextAt(rec, now), expiry.dueAt(rec, reconciler.phase(rec), now)), fiscal.dueAt(rec, now));
    const drain2 = earliestDue(earliestDue(outbox.dueAt(now), audit2.dueAt(now)), completion.dueAt(rec));
    const listing = fiscal.listingDueAt(now);
    const deleteAt = completion.owed(rec) === null ? end.deleteAt(rec) : null;
    const due = Math.min(reconcileAt ?? Infinity, drain2?.at ?? Infinity, listing?.at ?? Infinity, deleteAt ?? Infinity);
    const latest = Math.min(reconcileAt ?? Infinity, drain2?.latest ?? Infinity, listing?.latest ?? Infinity);
    if (due === Infinity) alarm.set(null);
    else if (replace || !alarm.setWithin(now, latest)) alarm.set(late ? Math.min(latest, deleteAt ?? Infinity) : due);
    if (store2.owesWrite && !alarm.setWithin(now, now + MARK_WAIT_MS)) store2.writeDeferred();
    const exportNow = audit2.ready(now);
    if (drainNow && (outbox.ready || exportNow))
      void Promise.all([outbox.ready ? outbox.drain() : null, exportNow ? audit2.export() : null]).then(() => this.arm({ drainNow: false }));
    if (drainNow && fiscal.ready) void fiscal.sync().then(() => this.arm({ drainNow: false }));
  }
};
var earliestDue = /* @__PURE__ */ __name((a, b) => a === null ? b : b === null ? a : { at: Math.min(a.at, b.at), latest: Math.min(a.latest, b.latest) }, "earliestDue");
var earliest = /* @__PURE__ */ __name((a, b) => a === null ? b : b === null ? a : Math.min(a, b), "earliest");

// src/record/receipt-object.ts
var ReceiptObject = class extends DurableObject4 {
  static {
    __name(this, "ReceiptObject");
  }
  #parts;
  #moves;
  #wake;
  #restore;
  constructor(ctx, env) {
    super(ctx, env);
    this.#parts = recordParts(ctx.storage, env);
    this.#moves = new Moves(this.#parts, env);
    this.#wake = new Wake(this.#parts, this.#moves);
    this.#restore = new RecordRestore(ctx.storage, this.#parts, this.#moves);
    void ctx.blockConcurrencyWhile(async () => this.#parts.alarm.found(await ctx.storage.getAlarm()));
  }
  // --- money moves (src/record/move.ts) ---------------------------------------------------------
  /** Sends (or resends) the OTP. */
  authorize(op) {
    return this.#armed(op, () => this.#moves.run(AUTHORIZE, op));
  }
  /** Pays a receipt with a card token or number, enforcing the OTP rules. */
  pay(op) {
    return this.#armed(op, () => this.#moves.run(PAY, op));
  }
  /** Confirms a transfer, enforcing the OTP rules. */
  payTransfer(op) {
    return this.#armed(op, () => this.#moves.run(PAY_TRANSFER, op));
  }
  holdConfirm(op) {
    return this.#armed(op, () => this.#moves.run(HOLD_CONFIRM, op));
  }
  cancel(op) {
    const cancelledBy = cancelledByFor(op.caller, op.cancelledBy, readConfig(this.env).cancelledBy);
    return this.#armed(op, () => this.#moves.run(CANCEL, { ...op, cancelledBy }));
  }
  /** The receipt or transfer as the upstream says it stands now. */
  check(op) {
    return this.#armed(op, () => this.#moves.check(op));
  }
  // --- the record ---------------------------------------------------------------------------------
  /**
   * Records a receipt or transfer just created upstream, with its `created`
   * event, its create's answer (what replays give) and the tid completion it
   * owes, in one commit. Idempotent; a takeover's init (the same record,
   * adopted) owes its own claim's completion.
   */
  async init(args) {
    const { store: store2, outbox, completion } = this.#parts;
    const kind = kindNamed(args.kind);
    const now = clock.now();
    const body = kind.withTid(args.body, args.tid);
    const row = newRecordRow({
      kind: args.kind,
      id: kind.idOf(body),
      tid: args.tid,
      upstream_tid: args.upstreamTid,
      owner: args.owner,
      is_hold: args.isHold ? 1 : 0,
      qr_merchant: args.qrMerchant ? 1 : 0,
      is_verify: body.is_verify ? 1 : 0,
      state: kind.stateOf(body),
      body: JSON.stringify(body),
      created_at: now
    });
    const owed = args.completion ? JSON.stringify(args.completion) : null;
    store2.create({ ...row, answer: row.body, owed_completion: owed }, () => {
      store2.trail.add({ at: now, op: "create", actor: args.owner, request_id: args.requestId, outcome: "ok" });
      outbox.emit(createdEvent(args.kind), null, args.requestId, now);
    });
    if (args.completion) completion.owe(args.completion);
    this.#wake.arm({ late: true });
  }
  /** The answer this record's create gave, for an identical retry by its owner (src/operations/creation.ts checks the tid row and the replay window); null when none is kept. */
  async replay(owner) {
    const rec = this.#parts.store.load();
    return rec && rec.owner === owner ? rec.answer : null;
  }
  /**
   * What the sandbox console shows of a record: its trail, the tid it was
   * created with, its amount now, and its own time (`now`; `aheadMs`: how far
   * the sandbox's test clock moved it ahead of the deployment's).
   */
  describe() {
    return this.#timed(async () => consoleViewOf(this.#parts));
  }
  /**
   * What the back office shows of a record (src/backoffice/): its trail, the
   * body as last stored (card numbers masked, phone and account values as
   * they are: the console masks them unless a reveal asks), its ids, its
   * times, its events' ids and where rule 14 stands. Null when none is stored.
   */
  async backOffice() {
    return backOfficeViewOf(this.#parts);
  }
  /**
   * Erases the owner's personal data (rule 10) from every store src/stores.ts
   * says the record erases (src/record/erase.ts): the stored body, the
   * create's answer kept for replays, every event in the outbox and every
   * answer kept for an Idempotency-Key now, and every body and answer
   * stored from now on. Ids, amounts, states and times stay. False when
   * nothing is stored.
   */
  erase() {
    return this.#timed(async () => {
      if (!this.#parts.store.load()) return false;
      eraseRecord2(this.#parts);
      return true;
    });
  }
  /** The bodies of these events that this record keeps (its outbox), by id: what events/list, events/resend and the sweep send. */
  async eventBodies(ids) {
    return this.#parts.store.load() ? this.#parts.store.outbox.eventBodies(ids) : {};
  }
  /**
   * The ids of every event this record keeps, oldest first: the only events
   * the event log may list of it (rule 10 deletes a record only once the log
   * holds none of its events), so events/list by record reads just these from
   * the log. None when no record is stored.
   */
  async eventIds() {
    return this.#parts.store.load() ? this.#parts.store.outbox.eventIds() : [];
  }
  /**
   * Rule 14: when the receipt's last fiscal watch began (its place in the
   * fiscal list, kept after it left it), or null when it was never watched:
   * where fiscal/pending's page after this receipt starts.
   */
  async fiscalSince() {
    const rec = this.#parts.store.load();
    return rec && rec.fiscal_since !== 0 ? rec.fiscal_since : null;
  }
  /**
   * Rule 15: sends the trail's entries not yet in the audit trail in R2 now
   * (the record's alarm sends them on its own, within holdMs of the oldest;
   * this is for whoever must see them there at once). True when none is left owed.
   */
  exportAudit() {
    return this.#timed(async () => {
      const { store: store2, audit: audit2 } = this.#parts;
      if (!store2.load()) return true;
      await audit2.export();
      return !audit2.owed;
    });
  }
  /** The audit trail, oldest first (partner only: the route checks). */
  async auditTrail() {
    return auditTrailOf(this.#parts.store);
  }
  // --- an operator's point-in-time restore (src/record/restore.ts; the route is src/operations/restore.ts) ---
  /** Step 1: the bookmark for the time and, unless a dry run, the restore scheduled for the next start. */
  restorePrepare(request) {
    return this.#timed(() => this.#restore.prepare(request));
  }
  /** Restarts the object (its call fails with the reason): the next call opens the restored storage. */
  restart(reason) {
    this.ctx.abort(reason);
  }
  /** Step 2, in the restarted object: what must survive the restore carried over, the restore audited, the upstream read. */
  restoreSettle(note2) {
    return this.#timed(async () => {
      try {
        return await this.#restore.complete(note2);
      } finally {
        this.#wake.arm();
      }
    });
  }
  /** Rule 8's reconciliation, the outbox and the record's end, with no caller (src/record/wake.ts): at most one canonical line (src/shared/log.ts) for the alarm. */
  alarm() {
    return this.#timed(async () => {
      const rec = this.#stored();
      const line = new LogLine("alarm", rec ? { kind: rec.kind, id: rec.id } : {}, { quiet: true, sample: readConfig(this.env).logSuccessSample });
      try {
        await inLine(line, () => this.#wake.fired());
      } finally {
        this.#stateChange(line, rec?.state);
        line.write();
      }
    });
  }
  // --- the sandbox's test clock (src/console/test-clock.ts; never called in production) ------------
  /**
   * Where the record's own time stands: its now, how long until its alarm is
   * due (0: due now; null: none set) and the events it keeps; null when
   * nothing is stored (never made, or ended by rule 10).
   */
  clockState() {
    return this.#timed(async () => {
      if (!this.#stored()) return null;
      const at = await this.ctx.storage.getAlarm();
      const wakeIn = at === null ? null : Math.max(0, at - clock.shared());
      return { now: clock.now(), wakeIn, eventIds: this.#parts.store.outbox.eventIds() };
    });
  }
  /**
   * Moves the record's own time `byMs` forward (stored in its row, so every
   * later call and alarm reads it) and, with `fire`, then runs its alarm as
   * the runtime would once that time came; else only sets the alarm where
   * its time now falls. Answers what the record shows afterwards, and the
   * events it made meanwhile; null when nothing is stored (never made, or
   * ended by rule 10).
   */
  advanceTime(byMs, fire) {
    return this.#timed(() => shiftRecordTime({ ...this.#parts, wake: this.#wake, stored: /* @__PURE__ */ __name(() => this.#stored(), "stored") }, byMs, fire));
  }
  /** The record as stored, or null (nothing stored, or stored by a newer release: neither read nor moved). */
  #stored() {
    try {
      return this.#parts.store.load();
    } catch {
      return null;
    }
  }
  /** Runs `work` in the record's own time (its row's offset: src/shared/clock.ts). */
  #timed(work) {
    return inRecordTime(this.#stored()?.clock_offset ?? 0, work);
  }
  /**
   * An operation (src/record/move.ts), in the record's own time: whatever it left owed has an alarm once it is
   * answered (and its events are drained at once). What it logs goes back with its answer, for the request's one
   * canonical line (src/shared/log.ts); an operation that throws writes it here, where it failed.
   */
  #armed(op, operation2) {
    return this.#timed(async () => {
      const before = this.#stored()?.state;
      const line = new LogLine(
        "record_call",
        { request_id: op.requestId, ...op.record ? { id: op.record.id } : {} },
        { sample: readConfig(this.env).logSuccessSample }
      );
      try {
        const answer = await inLine(line, operation2);
        this.#stateChange(line, before);
        return { ...answer, log: line.take() };
      } finally {
        line.write();
        this.#wake.arm();
      }
    });
  }
  /** The record's state change, if the call or alarm made one. */
  #stateChange(line, before) {
    const after = this.#parts.store.current?.state;
    if (after !== void 0 && after !== before) line.set({ state_from: before ?? null, state_to: after }, true);
  }
};

// src/statements/statement-object.ts
import { DurableObject as DurableObject5 } from "cloudflare:workers";

// src/statements/check.ts
var MISMATCHES_KEPT = 1e4;
async function checkLines(env, run, lines2) {
  const upstream = new UpstreamClient(env, `statement-${run.date}-${run.generation}`);
  await inPool(lines2, async (line) => {
    const kind = kindNamed(line.kind);
    const read = await kind.read(upstream, line.id);
    const found = [];
    if (!read.ok) {
      if (read.failure.code !== "receipt_not_found") return;
      run.checked++;
      found.push({ field: "exists", statement: "yes", upstream: "no" });
    } else {
      const body = read.value;
      run.checked++;
      const compare = /* @__PURE__ */ __name((field, statement, shown2) => {
        if (statement !== null && statement !== void 0 && statement !== shown2)
          found.push({ field, statement: String(statement), upstream: String(shown2) });
      }, "compare");
      compare("amount", line.amount, kind.amountOf(body));
      compare("commission", line.commission, commissionOf(line.kind, body));
      compare("merchant_id", line.merchant, kind.merchantOfBody(body) ?? null);
      const shown = kind.stateOf(body);
      if (line.state !== null && shown !== line.state) {
        let known = null;
        try {
          const trail = await receiptStub(env, line.kind, line.id).auditTrail();
          known = trail?.entries.at(-1)?.state ?? null;
        } catch {
          known = null;
        }
        if (known !== shown) found.push({ field: "state", statement: String(line.state), upstream: String(shown) });
      }
    }
    for (const m of found) {
      run.mismatch_count++;
      if (run.mismatches.length < MISMATCHES_KEPT) run.mismatches.push({ id: line.id, kind: line.kind, event_id: line.event_id, ...m });
      log("warn", "statement_mismatch", { date: run.date, id: line.id, kind: line.kind, field: m.field, event_id: line.event_id });
      metric(env, "statement_mismatch", { operation: line.kind, outcome: m.field });
    }
  });
}
__name(checkLines, "checkLines");

// src/statements/day-log.ts
var PAGE = 2e3;
var STEP_LINES = 2e4;
var CHECKS_PER_STEP = 200;
var TYPE_OF_CODE2 = new Map(Object.entries(EVENT_TYPE_CODES).map(([type, code]) => [code, type]));
var LINE_TYPE_CODES = LINE_EVENT_TYPES.map((type) => EVENT_TYPE_CODES[type]);
var CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
var timeOfId = /* @__PURE__ */ __name((id) => [...id.slice(4, 14)].reduce((ms, c) => ms * 32 + CROCKFORD.indexOf(c), 0), "timeOfId");
function sampled(eventId, share) {
  if (share >= 1) return true;
  if (share <= 0) return false;
  return fnv1a(eventId) / 4294967296 < share;
}
__name(sampled, "sampled");
async function nextLines(env, run) {
  const shards = allShards(env);
  const start = idAt(run.from);
  const end = idAt(run.to);
  const fetched = [];
  let boundary = "\uFFFF";
  await inPool(shards, async ({ binding, db }) => {
    if (run.exhausted[binding]) return;
    const after = run.cursors[binding];
    const { results } = await db.prepare(
      // Every table of the log, a page of each, then the first page of them all.
      `SELECT * FROM (${acrossLog(
        (table2) => `SELECT id, record_id, type, change, amount, commission, merchant, tid, owner, state, fiscal_sign FROM ${table2}
         WHERE id ${after ? "> ?1" : ">= ?1"} AND id < ?2 AND (change IS NOT NULL OR type IN (${LINE_TYPE_CODES.join(", ")}))
         ORDER BY id LIMIT ?3`
      )}) ORDER BY id LIMIT ?3`
    ).bind(after ?? start, end, PAGE).all();
    for (const row of results) fetched.push({ binding, row });
    if (results.length === PAGE && results[results.length - 1].id < boundary) boundary = results[results.length - 1].id;
    if (results.length < PAGE) run.exhausted[binding] = true;
  });
  fetched.sort((a, b) => a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0);
  const share = checkShare(env);
  const lines2 = [];
  const toCheck = [];
  let stoppedEarly = false;
  for (const { binding, row } of fetched) {
    if (row.id > boundary) break;
    if (lines2.length >= STEP_LINES || toCheck.length >= CHECKS_PER_STEP) {
      stoppedEarly = true;
      break;
    }
    const line = await lineOf(env, row);
    run.cursors[binding] = row.id;
    if (!line) continue;
    lines2.push(line);
    if (sampled(line.event_id, share)) toCheck.push(line);
  }
  if (stoppedEarly || fetched.some(({ row }) => row.id > boundary)) {
    for (const { binding, row } of fetched) if (row.id > (run.cursors[binding] ?? "")) run.exhausted[binding] = false;
  }
  const done = shards.every(({ binding }) => run.exhausted[binding]);
  return { lines: lines2, toCheck, rowsRead: fetched.length, databases: shards.length, done };
}
__name(nextLines, "nextLines");
async function lineOf(env, row) {
  const type = TYPE_OF_CODE2.get(row.type) ?? "";
  const kind = type.startsWith("transfer.") ? "transfer" : "receipt";
  const at = timeOfId(row.id);
  if (row.change !== null) {
    const change = CHANGE_OF_CODE.get(row.change);
    if (!change) return null;
    return {
      event_id: row.id,
      id: row.record_id,
      kind,
      at,
      change,
      amount: row.amount,
      commission: row.commission,
      merchant: row.merchant,
      tid: row.tid,
      owner: row.owner,
      state: row.state,
      fiscal_sign: row.fiscal_sign
    };
  }
  try {
    const bodies = await receiptStub(env, kind, row.record_id).eventBodies([row.id]);
    const body = bodies[row.id];
    if (!body) {
      log("error", "statement_event_body_missing", { event_id: row.id, id: row.record_id, kind });
      return null;
    }
    const fields = lineFields(JSON.parse(body));
    return fields ? { event_id: row.id, id: row.record_id, kind, at, ...fields } : null;
  } catch (err) {
    log("error", "statement_event_body_missing", {
      event_id: row.id,
      id: row.record_id,
      kind,
      error: err instanceof Error ? err.message : String(err)
    });
    return null;
  }
}
__name(lineOf, "lineOf");

// src/statements/run.ts
function statusOf(run) {
  return {
    date: run.date,
    state: run.done_at === null ? "building" : "ready",
    generation: run.generation,
    complete: run.complete,
    lines: run.lines,
    checked: run.checked,
    mismatches: run.mismatch_count,
    generated_at: run.done_at
  };
}
__name(statusOf, "statusOf");
var RunStorage = class {
  static {
    __name(this, "RunStorage");
  }
  #sql;
  constructor(sql2) {
    this.#sql = sql2;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS run (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), state TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tail (file TEXT NOT NULL, n INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (file, n));`);
  }
  run() {
    const row = this.#sql.exec("SELECT state FROM run").toArray()[0];
    return row ? JSON.parse(row.state) : null;
  }
  save(run) {
    this.#sql.exec("INSERT OR REPLACE INTO run (singleton, state) VALUES (1, ?)", JSON.stringify(run));
  }
  /** A new run starts with no tail of the run before. */
  clearTails() {
    this.#sql.exec("DELETE FROM tail");
  }
  tail(file) {
    const chunks = this.#sql.exec("SELECT bytes FROM tail WHERE file = ? ORDER BY n", file).toArray();
    const total = chunks.reduce((sum, chunk) => sum + chunk.bytes.byteLength, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(new Uint8Array(chunk.bytes), at);
      at += chunk.bytes.byteLength;
    }
    return out;
  }
  saveTail(file, bytes2) {
    this.#sql.exec("DELETE FROM tail WHERE file = ?", file);
    for (let i = 0, n = 0; i < bytes2.length; i += 1 << 20, n++)
      this.#sql.exec("INSERT INTO tail (file, n, bytes) VALUES (?, ?, ?)", file, n, bytes2.slice(i, i + (1 << 20)));
  }
};

// src/statements/statement-text.ts
function jsonHead(run) {
  return `{"date":${JSON.stringify(run.date)},"timezone":${JSON.stringify(run.zone)},"from":${run.from},"to":${run.to},"complete":${run.complete},"lines":[`;
}
__name(jsonHead, "jsonHead");
function lineText(run, line, time2) {
  const csv = csvRow([
    "line",
    run.date,
    time2,
    line.id,
    line.kind,
    line.tid ?? "",
    line.owner ?? "",
    line.merchant ?? "",
    line.change,
    line.state ?? "",
    line.amount ?? "",
    line.amount === null ? "" : sumOf(BigInt(line.amount)),
    line.commission ?? "",
    line.commission === null ? "" : sumOf(BigInt(line.commission)),
    line.fiscal_sign ?? "",
    "",
    line.event_id,
    ""
  ]);
  const json = `${run.lines > 0 ? "," : ""}
${JSON.stringify({ id: line.id, kind: line.kind, tid: line.tid, owner: line.owner, merchant_id: line.merchant, change: line.change, state: line.state, amount: line.amount, commission: line.commission, at: line.at, time: time2, fiscal_sign: line.fiscal_sign, event_id: line.event_id })}`;
  run.lines++;
  const key = `${line.merchant ?? ""}|${line.change}`;
  const total = run.totals[key] ?? { merchant_id: line.merchant, change: line.change, count: 0, amount: "0", commission: "0" };
  total.count++;
  total.amount = String(BigInt(total.amount) + BigInt(line.amount ?? 0));
  total.commission = String(BigInt(total.commission) + BigInt(line.commission ?? 0));
  run.totals[key] = total;
  return { csv, json };
}
__name(lineText, "lineText");
function closingText(run) {
  const totals = Object.values(run.totals).sort(
    (a, b) => String(a.merchant_id ?? "").localeCompare(String(b.merchant_id ?? "")) || a.change.localeCompare(b.change)
  );
  let csv = "";
  for (const total of totals) {
    csv += csvRow([
      "total",
      run.date,
      "",
      "",
      "",
      "",
      "",
      total.merchant_id ?? "",
      total.change,
      "",
      total.amount,
      sumOf(BigInt(total.amount)),
      total.commission,
      sumOf(BigInt(total.commission)),
      "",
      total.count,
      "",
      ""
    ]);
  }
  for (const m of run.mismatches) {
    csv += csvRow([
      "mismatch",
      run.date,
      "",
      m.id,
      m.kind,
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      m.event_id,
      `${m.field}: statement ${m.statement}, payment service ${m.upstream}`
    ]);
  }
  const json = `
],"totals":${JSON.stringify(totals.map((t) => ({ ...t, amount: Number(t.amount), commission: Number(t.commission), amount_sum: sumOf(BigInt(t.amount)), commission_sum: sumOf(BigInt(t.commission)) })))},"mismatches":${JSON.stringify(run.mismatches)},"mismatches_total":${run.mismatch_count},"checked":${run.checked},"lines_total":${run.lines},"generated_at":${run.done_at}}
`;
  return { csv, json };
}
__name(closingText, "closingText");

// src/statements/uploads.ts
var PART_BYTES = 5 * 1024 * 1024;
async function openUpload(bucket, key, contentType) {
  const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType } });
  return { key, uploadId: upload.uploadId, parts: [], bytes: 0 };
}
__name(openUpload, "openUpload");
async function appendToUpload(bucket, upload, tail, text2, last) {
  const added = new TextEncoder().encode(text2);
  let bytes2 = new Uint8Array(tail.length + added.length);
  bytes2.set(tail);
  bytes2.set(added, tail.length);
  const multipart = bucket.resumeMultipartUpload(upload.key, upload.uploadId);
  while (bytes2.length >= PART_BYTES) {
    upload.parts.push(await multipart.uploadPart(upload.parts.length + 1, bytes2.slice(0, PART_BYTES)));
    upload.bytes += PART_BYTES;
    bytes2 = bytes2.slice(PART_BYTES);
  }
  if (last) {
    if (bytes2.length > 0 || upload.parts.length === 0) {
      upload.parts.push(await multipart.uploadPart(upload.parts.length + 1, bytes2));
      upload.bytes += bytes2.length;
    }
    await multipart.complete(upload.parts);
    return new Uint8Array(0);
  }
  return bytes2;
}
__name(appendToUpload, "appendToUpload");
async function abortUploads(bucket, uploads) {
  for (const upload of uploads) {
    try {
      await bucket.resumeMultipartUpload(upload.key, upload.uploadId).abort();
    } catch {
    }
  }
}
__name(abortUploads, "abortUploads");

// src/statements/statement-object.ts
var KEEP_AFTER_DONE_MS = 8 * 864e5;
var StatementObject = class extends DurableObject5 {
  static {
    __name(this, "StatementObject");
  }
  #storage;
  #busy = Promise.resolve();
  constructor(ctx, env) {
    super(ctx, env);
    this.#storage = new RunStorage(ctx.storage.sql);
  }
  /** The nightly run's: starts the day's statement unless it is written (complete) or under way. */
  ensure(date, now) {
    return this.#serially(async () => {
      const run = this.#storage.run();
      if (run && run.date === date && (run.done_at === null || run.complete)) return statusOf(run);
      return statusOf(await this.#start(date, now));
    });
  }
  /** statements/rebuild: starts the day's statement over; its steps follow as alarms of their own. */
  rebuild(date, now) {
    return this.#serially(async () => {
      const before = this.#storage.run();
      if (before && before.done_at === null) await abortUploads(this.env.STATEMENTS, [before.csv, before.json]);
      return statusOf(await this.#start(date, now, (before?.generation ?? 0) + 1));
    });
  }
  async status() {
    const run = this.#storage.run();
    return run ? statusOf(run) : null;
  }
  async alarm() {
    await this.#serially(async () => {
      const run = this.#storage.run();
      if (run && run.done_at === null) await this.#step(run);
      else if (run && Date.now() >= run.done_at + KEEP_AFTER_DONE_MS) await this.ctx.storage.deleteAll();
    });
  }
  #serially(work) {
    const next = this.#busy.then(work, work);
    this.#busy = next.catch(() => void 0);
    return next;
  }
  async #start(date, now, generation = (this.#storage.run()?.generation ?? 0) + 1) {
    const zone = statementTimezone(this.env);
    const { from, to } = dayBounds(date, zone);
    const keys = statementKeys(date);
    const csv = await openUpload(this.env.STATEMENTS, keys.csv, "text/csv; charset=utf-8");
    const json = await openUpload(this.env.STATEMENTS, keys.json, "application/json");
    const run = {
      date,
      generation,
      zone,
      from,
      to,
      complete: now >= to,
      started_at: now,
      cursors: {},
      exhausted: {},
      totals: {},
      mismatches: [],
      mismatch_count: 0,
      checked: 0,
      lines: 0,
      csv,
      json,
      done_at: null
    };
    this.#storage.clearTails();
    this.#storage.saveTail("csv", new TextEncoder().encode(`${UTF8_BOM}${csvRow(CSV_HEADER)}`));
    this.#storage.saveTail("json", new TextEncoder().encode(jsonHead(run)));
    this.#storage.save(run);
    await this.ctx.storage.setAlarm(Date.now());
    log("info", "statement_started", { date, generation, complete: run.complete });
    return run;
  }
  /** One step: the next lines of the day, checked and appended to both files; the totals and the end when none is left. */
  async #step(run) {
    const began = Date.now();
    const partsBefore = run.csv.parts.length + run.json.parts.length;
    const page2 = await nextLines(this.env, run);
    await checkLines(this.env, run, page2.toCheck);
    let csvText = "";
    let jsonText = "";
    for (const line of page2.lines) {
      const text2 = lineText(run, line, localTime(line.at, run.zone));
      csvText += text2.csv;
      jsonText += text2.json;
    }
    const { done } = page2;
    if (done) {
      run.done_at = Date.now();
      const text2 = closingText({ ...run, done_at: run.done_at });
      csvText += text2.csv;
      jsonText += text2.json;
    }
    const csvTail = await appendToUpload(this.env.STATEMENTS, run.csv, this.#storage.tail("csv"), csvText, done);
    const jsonTail = await appendToUpload(this.env.STATEMENTS, run.json, this.#storage.tail("json"), jsonText, done);
    if (done) await this.#summarize(run);
    this.#storage.saveTail("csv", csvTail);
    this.#storage.saveTail("json", jsonTail);
    this.#storage.save(run);
    log("info", "statement_step", {
      date: run.date,
      generation: run.generation,
      ms: Date.now() - began,
      databases: page2.databases,
      rows_read: page2.rowsRead,
      lines: page2.lines.length,
      checks: page2.toCheck.length,
      parts_uploaded: run.csv.parts.length + run.json.parts.length - partsBefore,
      tail_bytes: csvTail.length + jsonTail.length,
      done
    });
    await this.ctx.storage.setAlarm(done ? run.done_at + KEEP_AFTER_DONE_MS : Date.now());
    return run;
  }
  /** The day's summary beside its files, once both are complete. */
  async #summarize(run) {
    const totals = Object.values(run.totals);
    await this.env.STATEMENTS.put(
      statementKeys(run.date).summary,
      JSON.stringify({
        ...statusOf(run),
        totals: totals.map((t) => ({ ...t, amount: Number(t.amount), commission: Number(t.commission) })),
        csv_bytes: run.csv.bytes,
        json_bytes: run.json.bytes
      }),
      { httpMetadata: { contentType: "application/json" } }
    );
    log("info", "statement_written", {
      date: run.date,
      generation: run.generation,
      lines: run.lines,
      checked: run.checked,
      mismatches: run.mismatch_count,
      complete: run.complete
    });
  }
};

// src/index.ts
var app = createApp();
var index_default = {
  fetch: app.fetch,
  // The events queue and its dead-letter queue (src/events/delivery.ts tells them apart by batch.queue).
  queue: handleEventBatch,
  // The Cron Trigger ([triggers] in wrangler.toml; in development scripts/dev.mjs fires it every 15 s, and the
  // statements' every minute): runCron below.
  scheduled(controller, env, _ctx) {
    const line = new LogLine("cron", { cron: controller.cron });
    return inLine(line, () => runCron(controller, env)).finally(() => line.write());
  }
};
async function runCron(controller, env) {
  const now = Number(controller.scheduledTime);
  if (controller.cron === STATEMENT_CRON) {
    await kickStatements(env, now);
    return;
  }
  const policy = retentionPolicy(env);
  let databases2;
  try {
    databases2 = cronShards(env, now, policy);
  } catch {
    databases2 = void 0;
  }
  const runs = [
    ...await Promise.allSettled([sweepEvents(env, now, void 0, databases2)]),
    ...await Promise.allSettled([runRetention(env, now, policy, databases2)]),
    // Erasure keeps its own bounded budget (src/cron/erasure.ts: 50 records or 200 D1 queries a run).
    ...await Promise.allSettled([runErasures(env, now)])
  ];
  for (const run of runs) if (run.status === "rejected") throw run.reason;
}
__name(runCron, "runCron");

// src/metrics/dev-metrics.ts
var DEV_METRICS_KEPT = 2e4;
var points = [];
var times = [];
var dropped = 0;
function keepDevMetrics() {
  observeMetrics((point) => {
    points.push(point);
    times.push(clock.now());
    if (points.length > DEV_METRICS_KEPT) {
      points.shift();
      times.shift();
      dropped++;
    }
  });
}
__name(keepDevMetrics, "keepDevMetrics");
function devMetricPoints(fromMs) {
  const kept = [];
  points.forEach((point, i) => {
    if (times[i] >= fromMs) kept.push({ at: times[i], point });
  });
  return kept;
}
__name(devMetricPoints, "devMetricPoints");
var percentile2 = /* @__PURE__ */ __name((sorted, p) => sorted[Math.max(0, Math.ceil(p / 100 * sorted.length) - 1)], "percentile");
var TIMED = /* @__PURE__ */ new Set(["upstream_call", "event_delivery"]);
function devMetricsSummary() {
  const groups = /* @__PURE__ */ new Map();
  for (const point of points) {
    const key = point.blobs.join("\0");
    const group = groups.get(key);
    if (group) group.push(point);
    else groups.set(key, [point]);
  }
  const rows = [...groups.values()].map((group) => {
    const [metric2, operation2, outcome] = group[0].blobs;
    const ms = group.flatMap((point) => Array(Math.max(1, Math.round(point.doubles[0]))).fill(point.doubles[1])).sort((a, b) => a - b);
    return {
      metric: metric2,
      operation: operation2,
      outcome,
      count: group.reduce((sum, point) => sum + point.doubles[0], 0),
      p50_ms: TIMED.has(metric2) ? percentile2(ms, 50) : null,
      p99_ms: TIMED.has(metric2) ? percentile2(ms, 99) : null,
      max_attempts: metric2 === "reconciliation" ? Math.max(...group.map((point) => point.doubles[2])) : null
    };
  });
  rows.sort((a, b) => a.metric.localeCompare(b.metric) || a.operation.localeCompare(b.operation) || a.outcome.localeCompare(b.outcome));
  return { points: points.length, dropped, rows };
}
__name(devMetricsSummary, "devMetricsSummary");

// src/sandbox/index.ts
import { WorkerEntrypoint } from "cloudflare:workers";

// src/sandbox/schemas.ts
var Id2 = pipe(string(), minLength(1), maxLength(64));
var Tid2 = pipe(string(), minLength(1), maxLength(128));
var Amount2 = pipe(number(), safeInteger(), minValue(1));
var IntId = pipe(number(), safeInteger());
var Otp2 = optional(pipe(string(), maxLength(16)));
var Token = pipe(string(), minLength(1), maxLength(256));
var TokenCard2 = object({ token: Token });
var NumberCard2 = object({
  number: pipe(string(), regex(/^\d{12,19}$/, "card number must be 12 to 19 digits")),
  expire: pipe(string(), regex(/^\d{4}$/, "expire must be yyMM"))
});
var IdBody = object({ id: Id2 });
var ReceiptCreateBody = object({
  tid: Tid2,
  amount: Amount2,
  merchant_id: IntId,
  account: optional(pipe(array(object({ key: string(), value: string(), label: optional(string()) })), maxLength(20)), []),
  description: optional(nullable(pipe(string(), maxLength(500)))),
  is_hold: optional(boolean(), false),
  currency: optional(literal(860, "currency must be 860"), 860)
});
var AuthorizeBody = object({ id: Id2, card: TokenCard2 });
var AnonymousAuthorizeBody = object({ id: Id2, card: NumberCard2 });
var PayBody = object({ id: Id2, card: TokenCard2, otp: Otp2 });
var AnonymousPayBody = object({ id: Id2, card: NumberCard2, otp: Otp2 });
var CancelBody = object({
  id: Id2,
  reason: optional(pipe(string(), maxLength(500))),
  cancelledBy: optional(pipe(string(), maxLength(200)))
});
var TransferCreateBody = pipe(
  object({
    tid: optional(Tid2),
    tId: optional(Tid2),
    amount: Amount2,
    rate_id: IntId,
    receiver_card: pipe(string(), regex(/^\d{16,19}$/, "receiver_card must be 16 to 19 digits")),
    token: Token
  }),
  check((body) => (body.tid ?? body.tId) !== void 0, "tid is required"),
  transform(({ tid, tId, ...rest }) => ({ ...rest, tid: tid ?? tId ?? "" }))
);
var TransferPayBody = object({ id: Id2, otp: Otp2 });

// src/sandbox/routes.ts
var routes = new Hono3();
routes.use("*", async (c, next) => {
  const requestId2 = c.req.header("x-request-id");
  if (requestId2) c.header("X-Request-Id", requestId2);
  await next();
});
routes.use("/api/*", async (c, next) => {
  const key = c.env.UPSTREAM_API_KEY;
  if (!key || c.req.header("authorization") !== `Bearer ${key}`) {
    return send(c, fail2(401, "UNAUTHORIZED", "Missing or wrong partner credential"));
  }
  await next();
});
function sandbox(env) {
  if (!env.SANDBOX) throw new Error("SANDBOX binding is missing");
  return env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
}
__name(sandbox, "sandbox");
function send(c, outcome) {
  if (outcome.ok) return c.json(outcome.body, 200);
  if (outcome.code === "OTP_RESEND_TOO_SOON" && outcome.extra?.wait !== void 0) {
    c.header("Retry-After", String(Math.ceil(outcome.extra.wait / 1e3)));
  }
  if (outcome.retryAfter !== void 0) c.header("Retry-After", String(outcome.retryAfter));
  return c.json({ error: { code: outcome.code, message: outcome.message }, ...outcome.extra }, outcome.status);
}
__name(send, "send");
function stallMs(env) {
  const ms = Number(env.SANDBOX_TIMEOUT_DELAY_MS ?? 15e3);
  return Number.isFinite(ms) && ms >= 0 ? ms : 15e3;
}
__name(stallMs, "stallMs");
function otpTtlMs2(env) {
  const ms = Number(env.SANDBOX_OTP_TTL_MS ?? 3e5);
  return Number.isFinite(ms) && ms >= 0 ? ms : 3e5;
}
__name(otpTtlMs2, "otpTtlMs");
var cancelAccess = /* @__PURE__ */ __name((env) => String(env.SANDBOX_CANCEL_ACCESS ?? "true").trim().toLowerCase() !== "false", "cancelAccess");
var cancelAccessDenied = /* @__PURE__ */ __name(() => fail2(
  403,
  "CANCEL_ACCESS_DENIED",
  "This partner has no access to cancel; ask the payment service's support to cancel, giving the receipt id and the reason"
), "cancelAccessDenied");
var NOT_JSON = /* @__PURE__ */ Symbol("not JSON");
function loggedFields(raw2) {
  const body = typeof raw2 === "object" && raw2 !== null ? raw2 : {};
  const text2 = /* @__PURE__ */ __name((value) => typeof value === "string" ? value.slice(0, 128) : null, "text");
  const otp = body.otp !== void 0 && body.otp !== null && body.otp !== "";
  return { tid: text2(body.tid) ?? text2(body.tId), id: text2(body.id), otp };
}
__name(loggedFields, "loggedFields");
function operation(path, schema, run) {
  routes.post(`/api/v1/partner/${path}`, async (c) => {
    const raw2 = await c.req.json().catch(() => NOT_JSON);
    const object2 = sandbox(c.env);
    const parsed = raw2 === NOT_JSON ? void 0 : safeParse(schema, raw2);
    let outcome;
    if (!parsed) {
      outcome = fail2(400, "VALIDATION_ERROR", "Body is not valid JSON");
    } else if (parsed.success) {
      outcome = await run(object2, parsed.output, c.env);
    } else {
      const details = parsed.issues.map((issue) => ({ path: getDotPath(issue) ?? "", message: issue.message }));
      outcome = fail2(400, "VALIDATION_ERROR", "Body does not match the operation", { details });
    }
    await object2.recordCall({
      path,
      ...loggedFields(raw2),
      status: outcome.ok ? 200 : outcome.status,
      code: outcome.ok ? null : outcome.code,
      request_id: c.req.header("x-request-id") ?? null
    });
    if (outcome.stall) await scheduler.wait(stallMs(c.env));
    return send(c, outcome);
  });
}
__name(operation, "operation");
operation("receipt/create", ReceiptCreateBody, (s, input) => s.createReceipt(input));
operation("receipt/authorize", AuthorizeBody, (s, input) => s.authorize(input));
operation("receipt/anonymous/authorize", AnonymousAuthorizeBody, (s, input) => s.authorize(input));
operation("receipt/pay", PayBody, (s, input, env) => s.payReceipt(input, false, otpTtlMs2(env)));
operation("receipt/anonymous/pay", AnonymousPayBody, (s, input, env) => s.payReceipt(input, true, otpTtlMs2(env)));
operation("receipt/hold-confirm", IdBody, (s, input) => s.holdConfirm(input));
operation("receipt/cancel", CancelBody, async (s, input, env) => cancelAccess(env) ? s.cancel(input) : cancelAccessDenied());
operation("receipt/check-id", IdBody, (s, input) => s.checkId(input));
operation("a2c/create", TransferCreateBody, (s, input) => s.createTransfer(input));
operation("a2c/pay", TransferPayBody, (s, input) => s.payTransfer(input));
operation("a2c/get-by-id", IdBody, (s, input) => s.getTransfer(input));
routes.get("/__sandbox/receipts/:id", async (c) => {
  const record = await sandbox(c.env).debugReceipt(c.req.param("id"));
  return record ? c.json(record) : send(c, fail2(404, "RECEIPT_NOT_FOUND", "No receipt with this id"));
});
routes.get("/__sandbox/a2c/:id", async (c) => {
  const record = await sandbox(c.env).debugTransfer(c.req.param("id"));
  return record ? c.json(record) : send(c, fail2(404, "RECEIPT_NOT_FOUND", "No transfer with this id"));
});
routes.get("/__sandbox/calls", async (c) => c.json(await sandbox(c.env).calls(c.req.query("id"))));
routes.notFound((c) => send(c, fail2(404, "NOT_FOUND", "No such operation")));
routes.onError((_error, c) => send(c, fail2(500, "INTERNAL_ERROR", "Sandbox internal error")));

// src/sandbox/sandbox-object.ts
import { DurableObject as DurableObject6 } from "cloudflare:workers";

// src/sandbox/receipts.ts
function resolveCard(card) {
  return "token" in card ? cardByToken(card.token) : cardByNumber(card.number, card.expire);
}
__name(resolveCard, "resolveCard");
function fiscalized(env, r, ofd, now) {
  if (r.card_behaviour !== "fiscal_late") return { ofd: JSON.stringify(ofd), fiscal_due_ms: null };
  return { ofd: JSON.stringify(fiscalWithheld(ofd)), fiscal_due_ms: now + msSetting(env.SANDBOX_FISCAL_DELAY_MS, 3e4) };
}
__name(fiscalized, "fiscalized");
function createReceipt(store2, input) {
  const merchant2 = findMerchant(input.merchant_id);
  if (!merchant2) return fail2(404, "MERCHANT_NOT_FOUND", "No merchant with this merchant_id");
  if (input.amount < merchant2.min_amount || input.amount > merchant2.max_amount) {
    return fail2(400, "AMOUNT_OUT_OF_RANGE", "Amount is outside the merchant's limits", {
      min_amount: merchant2.min_amount,
      max_amount: merchant2.max_amount
    });
  }
  const duplicate = store2.tidTaken(input.tid);
  if (duplicate) return duplicate;
  const id = randomHex(12);
  store2.sql.exec(
    `INSERT INTO receipts (id, tid, merchant_id, amount, commission, currency, description, account,
      is_hold, is_verify, state, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    input.tid,
    merchant2.merchant_id,
    input.amount,
    commissionOf2(input.amount, merchant2.commission_percent),
    input.currency,
    input.description ?? null,
    JSON.stringify(input.account),
    input.is_hold ? 1 : 0,
    merchant2.is_verify ? 1 : 0,
    State.created,
    Date.now()
  );
  store2.sql.exec(`INSERT INTO tids (tid, kind, record_id) VALUES (?, 'receipt', ?)`, input.tid, id);
  return ok(receiptBody(store2.receipt(id)));
}
__name(createReceipt, "createReceipt");
function awaitingPayment(store2, card, id) {
  if (card?.behaviour === "busy") return busy();
  const r = store2.receipt(id);
  if (!r) return receiptNotFound();
  return refusePay(r) ?? r;
}
__name(awaitingPayment, "awaitingPayment");
function authorize(store2, env, input) {
  const card = resolveCard(input.card);
  const r = awaitingPayment(store2, card, input.id);
  if ("ok" in r) return r;
  if (!card) return fail2(402, "CARD_DECLINED", "Card is not accepted", { receipt: receiptBody(r) });
  const wait = msSetting(env.SANDBOX_OTP_WAIT_MS, 6e4);
  const now = nowOf(r);
  if (r.otp_sent_ms !== null && now - r.otp_sent_ms < wait) {
    return fail2(429, "OTP_RESEND_TOO_SOON", "An OTP was sent recently", { wait: wait - (now - r.otp_sent_ms) });
  }
  store2.update("receipts", r.id, { otp_sent_ms: now });
  return ok({ id: r.id, sent: true, phone: card.phone, wait });
}
__name(authorize, "authorize");
function payReceipt(store2, env, input, anonymous, otpTtlMs3) {
  const card = resolveCard(input.card);
  const r = awaitingPayment(store2, card, input.id);
  if ("ok" in r) return r;
  if (anonymous || r.is_verify === 1) {
    const live = r.otp_sent_ms !== null && nowOf(r) - r.otp_sent_ms < otpTtlMs3;
    const otpFailure = store2.checkOtp("receipts", r, input.otp, live);
    if (otpFailure && !(card?.behaviour === "judges_unknown" && judgedOtp(otpFailure))) return otpFailure;
  }
  const declined = /* @__PURE__ */ __name((code, error) => {
    store2.update("receipts", r.id, { error, card_behaviour: card?.behaviour ?? "declined" });
    return fail2(402, code, error, { receipt: store2.receiptBody(r.id) });
  }, "declined");
  if (!card) return declined("CARD_DECLINED", "Card declined");
  switch (card.behaviour) {
    case "insufficient":
      return declined("INSUFFICIENT_FUNDS", "Insufficient funds");
    case "timeout":
    case "error":
      store2.update("receipts", r.id, { card_behaviour: card.behaviour });
      return card.behaviour === "timeout" ? stalled() : fail2(500, "INTERNAL_ERROR", "Upstream processing error");
    case "judges_unknown":
      store2.update("receipts", r.id, { card_behaviour: card.behaviour });
      return unknownCode();
    case "pays_late":
      store2.sql.exec(
        "UPDATE receipts SET card_behaviour = ?, late_pay_due_ms = COALESCE(late_pay_due_ms, ?) WHERE id = ?",
        card.behaviour,
        nowOf(r) + msSetting(env.SANDBOX_LATE_MS, 2e4),
        r.id
      );
      return stalled();
  }
  const now = nowOf(r);
  const charged = { error: null, rrn: rrn(), card_number: card.masked_pan, card_behaviour: card.behaviour };
  if (card.behaviour === "supplier_pending" || card.behaviour === "supplier_fails") {
    store2.update("receipts", r.id, {
      ...charged,
      state: State.supplierPending,
      paid_ms: now,
      supplier_due_ms: now + msSetting(env.SANDBOX_SUPPLIER_DELAY_MS, 1e4)
    });
  } else if (r.is_hold === 1) {
    store2.update("receipts", r.id, { ...charged, state: State.held, hold_status: "held" });
  } else {
    const row = { ...r, ...charged };
    store2.update("receipts", r.id, { ...charged, state: State.paid, paid_ms: now, ...fiscalized(env, row, saleOfd(r, now), now) });
  }
  const paid = store2.receipt(r.id, false);
  const body = anonymous ? reducedReceiptBody(paid) : receiptBody(paid);
  return card.behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
}
__name(payReceipt, "payReceipt");
function holdConfirm(store2, env, input) {
  const r = store2.receipt(input.id);
  if (!r) return receiptNotFound();
  if (r.state === State.cancelled) return fail2(400, "RECEIPT_CANCELLED", "Receipt is cancelled", { receipt: receiptBody(r) });
  if (r.state !== State.held) return fail2(400, "RECEIPT_NOT_HELD", "Receipt is not held", { receipt: receiptBody(r) });
  const now = nowOf(r);
  store2.update("receipts", r.id, { state: State.paid, paid_ms: now, hold_status: "confirmed", ...fiscalized(env, r, saleOfd(r, now), now) });
  return ok(store2.receiptBody(r.id));
}
__name(holdConfirm, "holdConfirm");
function cancel(store2, env, input) {
  const r = store2.receipt(input.id);
  if (!r) return receiptNotFound();
  const qr = findMerchant(r.merchant_id)?.kind === "qr";
  if (qr || r.state === State.cancelled || r.state === State.supplierPending) {
    const why = qr ? "QR merchants do not allow cancel" : `Cancel is not allowed in state ${r.state}`;
    return fail2(400, "CANCEL_NOT_ALLOWED", why, { receipt: receiptBody(r) });
  }
  const now = nowOf(r);
  store2.update("receipts", r.id, {
    state: State.cancelled,
    cancelled_ms: now,
    cancel_reason: input.reason ?? null,
    cancelled_by: input.cancelledBy ?? null,
    // A paid receipt's refund is registered at the fiscal data operator: late too for a tok_sandbox_fiscal_late card.
    ...r.state === State.paid ? fiscalized(env, r, refundOfd(r, now), now) : {},
    ...r.state === State.held ? { hold_status: "released" } : {}
  });
  return ok(store2.receiptBody(r.id));
}
__name(cancel, "cancel");
function checkId(store2, input) {
  const r = store2.receipt(input.id);
  return r ? ok(receiptBody(r)) : receiptNotFound();
}
__name(checkId, "checkId");
function debugReceipt(store2, id) {
  const r = store2.receipt(id);
  if (!r) return null;
  return {
    ...receiptBody(r),
    is_hold: r.is_hold === 1,
    hold_status: r.hold_status,
    otp_attempts: r.otp_attempts,
    wrong_otp_attempts: r.wrong_otps,
    expired_otp_attempts: r.expired_otps,
    otp_sent_at: r.otp_sent_ms,
    card_behaviour: r.card_behaviour,
    merchant_kind: findMerchant(r.merchant_id)?.kind ?? "unknown",
    cancel_reason: r.cancel_reason,
    cancelled_by: r.cancelled_by,
    supplier_due_at: r.supplier_due_ms,
    late_pay_due_at: r.late_pay_due_ms,
    fiscal_due_at: r.fiscal_due_ms
  };
}
__name(debugReceipt, "debugReceipt");

// src/sandbox/transfers.ts
function createTransfer2(store2, input) {
  const rate = findRate(input.rate_id);
  if (!rate) return fail2(404, "RATE_NOT_FOUND", "No rate with this rate_id");
  const sender = cardByToken(input.token);
  if (!sender) return fail2(402, "CARD_DECLINED", "Sender card is not accepted");
  const duplicate = store2.tidTaken(input.tid);
  if (duplicate) return duplicate;
  const id = ulid();
  store2.sql.exec(
    `INSERT INTO transfers (id, tid, amount, commission, rate_id, sender_behaviour, receiver_pan,
      receiver_unavailable, is_verify, state, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    input.tid,
    input.amount,
    commissionOf2(input.amount, rate.percent, rate.flat),
    rate.rate_id,
    sender.behaviour,
    maskPan2(input.receiver_card),
    input.receiver_card === UNAVAILABLE_RECEIVER ? 1 : 0,
    input.amount >= A2C_VERIFY_FROM ? 1 : 0,
    State.created,
    Date.now()
  );
  store2.sql.exec(`INSERT INTO tids (tid, kind, record_id) VALUES (?, 'transfer', ?)`, input.tid, id);
  return ok(transferBody(store2.transfer(id)));
}
__name(createTransfer2, "createTransfer");
function payTransfer(store2, env, input) {
  const t = store2.transfer(input.id);
  if (!t) return receiptNotFound();
  if (t.sender_behaviour === "busy") return busy();
  const current = { transfer: transferBody(t) };
  if (t.state === State.cancelled) return fail2(400, "RECEIPT_CANCELLED", "Transfer is cancelled", current);
  if (t.state !== State.created) return fail2(400, "RECEIPT_ALREADY_PAID", "Transfer is already paid", current);
  if (t.is_verify === 1) {
    const otpFailure = store2.checkOtp("transfers", t, input.otp, true);
    if (otpFailure && !(t.sender_behaviour === "judges_unknown" && judgedOtp(otpFailure))) return otpFailure;
  }
  switch (t.sender_behaviour) {
    case "insufficient":
      return declineTransfer(store2, t.id, "INSUFFICIENT_FUNDS", "Insufficient funds");
    case "timeout":
      return stalled();
    case "error":
      return fail2(500, "INTERNAL_ERROR", "Upstream processing error");
    case "judges_unknown":
      return unknownCode();
  }
  if (t.receiver_unavailable === 1) {
    return declineTransfer(store2, t.id, "RECEIVER_UNAVAILABLE", "Receiver card cannot accept the transfer");
  }
  if (t.sender_behaviour === "pays_late") {
    store2.sql.exec(
      "UPDATE transfers SET late_pay_due_ms = COALESCE(late_pay_due_ms, ?) WHERE id = ?",
      nowOf(t) + msSetting(env.SANDBOX_LATE_MS, 2e4),
      t.id
    );
    return stalled();
  }
  store2.update("transfers", t.id, { state: State.paid, paid_ms: nowOf(t), error: "" });
  const body = store2.transferBody(t.id);
  return t.sender_behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
}
__name(payTransfer, "payTransfer");
function declineTransfer(store2, id, code, error) {
  store2.update("transfers", id, { error });
  return fail2(402, code, error, { transfer: store2.transferBody(id) });
}
__name(declineTransfer, "declineTransfer");
function getTransfer(store2, input) {
  const t = store2.transfer(input.id);
  return t ? ok(transferBody(t)) : receiptNotFound();
}
__name(getTransfer, "getTransfer");
function debugTransfer(store2, id) {
  const t = store2.transfer(id);
  if (!t) return null;
  return {
    ...transferBody(t),
    rate_id: t.rate_id,
    otp_attempts: t.otp_attempts,
    wrong_otp_attempts: t.wrong_otps,
    sender_behaviour: t.sender_behaviour,
    receiver_unavailable: t.receiver_unavailable === 1,
    late_pay_due_at: t.late_pay_due_ms
  };
}
__name(debugTransfer, "debugTransfer");

// src/sandbox/sandbox-object.ts
var SandboxObject = class extends DurableObject6 {
  static {
    __name(this, "SandboxObject");
  }
  #store;
  constructor(ctx, env) {
    super(ctx, env);
    this.#store = new SandboxStore(ctx.storage.sql);
  }
  // --- receipts -------------------------------------------------------------
  createReceipt(input) {
    return createReceipt(this.#store, input);
  }
  /** Token and anonymous authorize differ only in how the card is named. */
  authorize(input) {
    return authorize(this.#store, this.env, input);
  }
  /** `otpTtlMs`: how long after the last send an OTP stays right (SANDBOX_OTP_TTL_MS, read by the caller). */
  payReceipt(input, anonymous, otpTtlMs3) {
    return payReceipt(this.#store, this.env, input, anonymous, otpTtlMs3);
  }
  holdConfirm(input) {
    return holdConfirm(this.#store, this.env, input);
  }
  cancel(input) {
    return cancel(this.#store, this.env, input);
  }
  checkId(input) {
    return checkId(this.#store, input);
  }
  debugReceipt(id) {
    return debugReceipt(this.#store, id);
  }
  // --- a2c transfers --------------------------------------------------------
  createTransfer(input) {
    return createTransfer2(this.#store, input);
  }
  payTransfer(input) {
    return payTransfer(this.#store, this.env, input);
  }
  getTransfer(input) {
    return getTransfer(this.#store, input);
  }
  debugTransfer(id) {
    return debugTransfer(this.#store, id);
  }
  // --- test clocks and triggers (src/sandbox/test-clock.ts) ------------------
  /** ms until the sandbox next acts on its own for this record, in its own time; null: nothing left; undefined: no such record. */
  nextDue(kind, id, otpTtlMs3) {
    return nextDue(this.#store, kind, id, otpTtlMs3);
  }
  /** Moves the record's own time forward: what fell due meanwhile, in order; undefined: no such record. */
  advance(kind, id, byMs, otpTtlMs3) {
    return advance(this.#store, kind, id, byMs, otpTtlMs3);
  }
  /** The upstream acts now on what it had left for later. */
  trigger(id, what) {
    return trigger(this.#store, id, what);
  }
  // --- call log (lets tests prove what did or did not reach the upstream) ---
  recordCall(call) {
    this.#store.recordCall(call);
  }
  /** Oldest first; with `id`, only the calls naming that record. */
  calls(id) {
    return this.#store.calls(id);
  }
};

// src/sandbox/index.ts
var SandboxUpstream = class extends WorkerEntrypoint {
  static {
    __name(this, "SandboxUpstream");
  }
  async fetch(request) {
    const latency = Number(this.env.SANDBOX_LATENCY_MS ?? 0);
    if (latency > 0) await scheduler.wait(latency);
    return routes.fetch(request, this.env, this.ctx);
  }
};

// src/dev.ts
keepDevMetrics();
useLocalMetrics(devMetricPoints);
var sandboxPaths = new Hono3().route("/", testClock).route("/", sandboxConsole).all("/__sandbox/*", (c) => c.env.UPSTREAM.fetch(c.req.raw));
async function auditBucketView(env, url) {
  if (url.pathname === "/__sandbox/audit/keys") {
    const listed = await env.AUDIT.list({ prefix: url.searchParams.get("prefix") ?? "audit/", cursor: url.searchParams.get("cursor") ?? void 0 });
    return Response.json({ keys: listed.objects.map((object2) => object2.key), cursor: listed.truncated ? listed.cursor : null });
  }
  if (url.pathname === "/__sandbox/audit/object") {
    const object2 = await env.AUDIT.get(url.searchParams.get("key") ?? "");
    return object2 ? new Response(object2.body) : new Response("not found", { status: 404 });
  }
  return new Response("not found", { status: 404 });
}
__name(auditBucketView, "auditBucketView");
var dev_default = {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__sandbox" && env.UPSTREAM) {
      url.pathname = "/__sandbox/";
      return Response.redirect(url.toString(), 301);
    }
    if (url.pathname === "/__sandbox/metrics" && request.method === "GET" && env.UPSTREAM) {
      return Response.json(devMetricsSummary());
    }
    if (url.pathname.startsWith("/__sandbox/audit/") && request.method === "GET" && env.UPSTREAM) return auditBucketView(env, url);
    if (url.pathname.startsWith("/__sandbox/") && env.UPSTREAM) {
      return sandboxPaths.fetch(request, env, ctx);
    }
    return index_default.fetch(request, env, ctx);
  },
  queue: index_default.queue,
  scheduled: index_default.scheduled
};
export {
  AuditWriter,
  EventPager,
  ReceiptObject,
  RiskObject,
  SandboxObject,
  SandboxUpstream,
  StatementObject,
  dev_default as default
};
//# sourceMappingURL=dev.js.map
