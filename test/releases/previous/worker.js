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
    return this.#cachedBody("text").then((text) => JSON.parse(text));
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
  text = /* @__PURE__ */ __name((text, arg, headers) => {
    return !this.#preparedHeaders && !this.#status && !arg && !headers && !this.finalized ? new Response(text) : this.#newResponse(text, arg, setDefaultContentType(TEXT_PLAIN, headers));
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
    const parts = splitRoutingPath(path);
    const possibleKeys = /* @__PURE__ */ new Set();
    let i = 0;
    for (const p of parts) {
      const nextP = parts[++i];
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
    const parts = splitPath(path);
    const curNodesQueue = [];
    const len = parts.length;
    let partOffsets = null;
    for (let i = 0; i < len; i++) {
      const part = parts[i];
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
                offset += parts[p].length + 1;
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
var DEFAULT_OPTIONS = {
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
    ...DEFAULT_OPTIONS,
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

// src/clock.ts
var offsetMs = 0;
var clock = {
  now: /* @__PURE__ */ __name(() => Date.now() + offsetMs, "now")
};

// src/examples.ts
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

// src/error-codes.ts
var ERROR_CODES = {
  invalid_json: {
    status: 400,
    meaning: "The body does not parse as JSON.",
    example: { message: "The request body is not valid JSON at line 2, column 18." }
  },
  invalid_request: {
    status: 400,
    meaning: "A field is missing, of the wrong type, out of its rule or a near miss of a known name; or an unknown merchant or rate (`details` lists what).",
    example: {
      message: "The request body does not match the schema.",
      details: [{ path: "amount", message: "amount must be an integer number of tiyin" }]
    }
  },
  otp_required: {
    status: 400,
    meaning: "Pay without an OTP where one is needed; not a guess.",
    example: { message: "This payment needs the OTP sent to the card owner (authorize first)." }
  },
  unauthorized: {
    status: 401,
    meaning: "No credentials, or ones that do not verify (`WWW-Authenticate`).",
    example: { message: "Send Authorization: Bearer <partner server key or user JWT>." }
  },
  card_declined: {
    status: 402,
    meaning: "The card was declined; `decline_reason` says why.",
    example: { message: "Card declined: insufficient funds.", decline_reason: "insufficient_funds", upstream_code: "INSUFFICIENT_FUNDS" }
  },
  forbidden: {
    status: 403,
    meaning: "The caller may not do this: a user on a partner-only operation, or the service refuses the partner this cancel.",
    example: { message: "This operation is for the partner backend's server key; users may not call it." }
  },
  hold_not_enabled: {
    status: 403,
    meaning: "A create with `is_hold`, or hold-confirm, where the deployment has no hold function.",
    example: { message: "The hold function is not enabled in this deployment." }
  },
  receipt_not_found: {
    status: 404,
    meaning: "No such receipt, transfer or tid for this caller (another user's looks the same).",
    example: { message: "No such receipt." }
  },
  not_found: {
    status: 404,
    meaning: "No such path, or no such event id.",
    example: { message: "No event with this id." }
  },
  method_not_allowed: {
    status: 405,
    meaning: "Another method than the path answers (`Allow` names it).",
    example: { message: "Partner operations are POST requests with a JSON body; GET is not allowed." }
  },
  tid_conflict: {
    status: 409,
    meaning: "The tid is taken by a different body or the other kind, or its stored answer is older than 7 days (the message names the receipt to read).",
    example: {
      message: `This tid already created receipt ${EXAMPLE_RECEIPT_ID} with another body: read it with check-id or check-tid, or create with a new tid.`
    }
  },
  tid_in_progress: {
    status: 409,
    meaning: "A create with this tid is still running; retry after `Retry-After`.",
    example: { message: "The create with this tid is still in flight." }
  },
  idempotency_key_reused: {
    status: 409,
    meaning: "This Idempotency-Key was used by the same caller for this operation on this record with another body (rule 11): use a new key.",
    example: { message: "This Idempotency-Key was used for another request on this receipt; use a new key for a new request." }
  },
  operation_in_progress: {
    status: 409,
    meaning: "Another operation on this receipt or transfer is running; retry after `Retry-After`.",
    example: { message: "Another operation is in flight for this receipt." }
  },
  receipt_cancelled: {
    status: 409,
    meaning: "The receipt or transfer is cancelled.",
    example: { message: "The receipt is cancelled.", upstream_code: "RECEIPT_CANCELLED" }
  },
  receipt_already_paid: {
    status: 409,
    meaning: "Pay of a receipt that is paid, held or awaiting the supplier.",
    example: { message: "The receipt is already paid.", upstream_code: "RECEIPT_ALREADY_PAID" }
  },
  receipt_not_held: {
    status: 409,
    meaning: "Hold-confirm of a receipt that holds nothing.",
    example: { message: "The receipt holds no amount to confirm.", upstream_code: "RECEIPT_NOT_HELD" }
  },
  cancel_not_allowed: {
    status: 409,
    meaning: "Cancel in state 21 or 57, or for a QR merchant.",
    example: { message: "The payment service refuses to cancel this receipt.", upstream_code: "CANCEL_NOT_ALLOWED" }
  },
  otp_attempts_exhausted: {
    status: 409,
    meaning: "The third failed OTP guess; every later pay of a transfer it closed answers this too.",
    example: { message: "Three wrong OTPs: the receipt is cancelled. Create a new one." }
  },
  receipt_expired: {
    status: 409,
    meaning: "Rule 12: the receipt or transfer expired (unpaid `RECEIPT_EXPIRY_HOURS` after its creation, or held and not confirmed within `HOLD_EXPIRY_DAYS`) and the gateway cancelled it or closed it at the edge; every operation on it but a read answers this. Create a new one.",
    example: { message: "The receipt expired unpaid and is cancelled; create a new one." }
  },
  otp_expired: {
    status: 409,
    meaning: "No OTP was sent for this receipt, or it expired: call authorize again. Not a guess.",
    example: { message: "No OTP was sent for this receipt, or it expired: call authorize again. This did not count as a guess." }
  },
  payload_too_large: {
    status: 413,
    meaning: "A body over 16 KiB.",
    example: { message: "Request bodies are limited to 16 KiB." }
  },
  unsupported_media_type: {
    status: 415,
    meaning: "A body that is not `application/json`.",
    example: { message: "Send the request body as JSON, with Content-Type: application/json." }
  },
  otp_invalid: {
    status: 422,
    meaning: "A wrong OTP; `attempts_left` says how many guesses remain.",
    example: { message: "The OTP is wrong.", attempts_left: 2, upstream_code: "OTP_INVALID" }
  },
  amount_out_of_range: {
    status: 422,
    meaning: "The amount is outside the merchant's limits (`min_amount`, `max_amount`).",
    example: {
      message: "The amount is outside the merchant's limits (min_amount, max_amount).",
      min_amount: 1e5,
      max_amount: 5e8,
      upstream_code: "AMOUNT_OUT_OF_RANGE"
    }
  },
  upstream_refused: {
    status: 422,
    meaning: "The payment service refused with a code the gateway does not know (`upstream_code`); nothing happened.",
    example: { message: "The payment service refused the request with LIMIT_EXCEEDED. Nothing was done.", upstream_code: "LIMIT_EXCEEDED" }
  },
  rate_limited: {
    status: 429,
    meaning: "Too many calls from this user or address, or the sixth authorize of a receipt; retry after `Retry-After`.",
    example: { message: "Too many pay calls; wait before trying again." }
  },
  risk_limited: {
    status: 429,
    meaning: "Rule 13: this card number, this card's OTPs or this user's cards or OTPs are past their limit (`rule` names it); nothing was sent upstream; retry after `Retry-After`.",
    example: {
      message: "This card number was used too many times in the last hour (rule 13, card_uses_per_hour); retry after Retry-After seconds.",
      rule: "card_uses_per_hour"
    }
  },
  otp_resend_too_soon: {
    status: 429,
    meaning: "Authorize again before `wait` has passed; retry after `Retry-After`.",
    example: { message: "An OTP was sent moments ago; wait before asking for another." }
  },
  internal_error: {
    status: 500,
    meaning: "A gateway bug; no input leads here.",
    example: { message: "The gateway failed to handle this request." }
  },
  upstream_error: {
    status: 502,
    meaning: "The payment service's answer was unusable, or it refused the gateway's credential; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service could not be reached, or the connection broke." }
  },
  upstream_unavailable: {
    status: 503,
    meaning: "The payment service said it is busy or down: nothing happened; retry after `Retry-After`.",
    example: { message: "The payment service is busy or down and did nothing; retry after the time given." }
  },
  not_ready: {
    status: 503,
    meaning: "The readiness probe failed (the payment service or D1 does not answer); retry after `Retry-After`.",
    example: { message: "Not ready: the payment service did not answer within 2 s." }
  },
  service_misconfigured: {
    status: 503,
    meaning: "The deployment's configuration is unsafe (e.g. development credentials in production); every call answers this until it is fixed.",
    example: { message: "This deployment is misconfigured: TID_SECRET is not set." }
  },
  upstream_timeout: {
    status: 504,
    meaning: "The payment service did not answer in time; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service did not answer in time." }
  }
};
var ERROR_CODE_NAMES = Object.keys(ERROR_CODES);
var errorExample = /* @__PURE__ */ __name((code) => {
  const { message: message2, ...fields } = ERROR_CODES[code].example;
  return { error: { code, message: message2, request_id: EXAMPLE_REQUEST_ID, ...fields } };
}, "errorExample");

// src/redact.ts
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
var PAN_RUN = /\d{13,19}/g;
var JWT_LIKE = /eyJ[\w-]+\.[\w-]+\.[\w-]*/g;
var SERVER_KEY_LIKE = /\bsk_[\w-]+/g;
var BEARER = /Bearer\s+\S+/gi;
function maskPan(pan) {
  if (pan.length < 13) return "*".repeat(pan.length);
  return `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`;
}
__name(maskPan, "maskPan");
var SUSPICIOUS = /\d{13}|eyJ|sk_|bearer/i;
function redactString(value) {
  if (!SUSPICIOUS.test(value)) return value;
  return value.replace(BEARER, "Bearer [redacted]").replace(JWT_LIKE, "[redacted-jwt]").replace(SERVER_KEY_LIKE, "[redacted-key]").replace(PAN_RUN, maskPan);
}
__name(redactString, "redactString");
function redact(value, depth = 0) {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 8) return "[truncated]";
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEYS.has(key.toLowerCase()) && v != null ? "[redacted]" : redact(v, depth + 1);
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

// src/log.ts
function log(level, event, fields = {}) {
  const line = JSON.stringify({ level, event, ...redact(fields) });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
__name(log, "log");

// src/errors.ts
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
function renderError(err, c) {
  const requestId2 = c.get("requestId") ?? "";
  let apiError;
  if (err instanceof ApiError) {
    apiError = err;
  } else if (err instanceof HTTPException && err.status === 413) {
    apiError = new ApiError("payload_too_large", "Request bodies are limited to 16 KiB.");
  } else if (err instanceof HTTPException && err.status === 400) {
    apiError = new ApiError("invalid_json", "The request body is not valid JSON.");
  } else {
    log("error", "unhandled_error", {
      request_id: requestId2,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err)
    });
    apiError = new ApiError("internal_error", "The gateway failed to handle this request.");
  }
  const answer = errorAnswer(apiError.toFailure(), requestId2);
  for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
  return c.body(answer.body, answer.status, { "content-type": "application/json" });
}
__name(renderError, "renderError");
function errorAnswer(failure, requestId2) {
  const { code, message: message2, retry_after, headers, ...extras } = failure;
  const out = { ...headers ?? {} };
  if (retry_after !== void 0) out["Retry-After"] = String(Math.max(1, Math.ceil(retry_after)));
  return { status: ERROR_CODES[code].status, body: JSON.stringify({ error: { code, message: message2, request_id: requestId2, ...extras } }), headers: out };
}
__name(errorAnswer, "errorAnswer");

// src/config-lists.ts
var settingText = /* @__PURE__ */ __name((value) => typeof value === "string" ? value.trim() : "", "settingText");
var secretList = /* @__PURE__ */ __name((value) => settingText(value).split(/\s+/).filter(Boolean), "secretList");
var WEBHOOK_SECRET_PREFIX = "whsec_";
var MIN_WEBHOOK_SECRET_BYTES = 24;
var BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
function decodeBase64(text) {
  if (!BASE64.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
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

// src/config-rules.ts
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
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
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
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(missing).fill("0"), ...tail];
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
function productionVarProblems(vars) {
  const problems = [];
  const jwksUrl = settingText(vars.JWKS_URL);
  if (!jwksUrl) problems.push("JWKS_URL is not set: users' JWTs cannot be verified.");
  else {
    const jwks = productionUrlProblem("JWKS_URL", jwksUrl);
    if (jwks) problems.push(jwks);
  }
  const upstream = productionUrlProblem("UPSTREAM_BASE_URL", settingText(vars.UPSTREAM_BASE_URL));
  if (upstream) problems.push(upstream);
  const webhookUrl = settingText(vars.WEBHOOK_URL);
  if (!webhookUrl) problems.push("WEBHOOK_URL is not set: events cannot be delivered.");
  else {
    const webhook = productionUrlProblem("WEBHOOK_URL", webhookUrl);
    if (webhook) problems.push(webhook);
  }
  return problems;
}
__name(productionVarProblems, "productionVarProblems");
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

// src/config.ts
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
      expiry: { unpaidMs: windowMs(env, "RECEIPT_EXPIRY_HOURS"), heldMs: windowMs(env, "HOLD_EXPIRY_DAYS") }
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
  problems.push(...productionVarProblems(settings).filter((p) => p !== "JWKS_URL is not a URL."));
  problems.push(...productionSecretProblems(settings));
  return problems;
}
__name(productionProblems, "productionProblems");

// src/fanout.ts
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
function probeSample(items, size2, at) {
  if (items.length <= size2) return [...items];
  const rest = items.slice(1);
  const take = size2 - 1;
  const start = Math.floor(at / 1e3) * take % rest.length;
  return [items[0], ...Array.from({ length: take }, (_, i) => rest[(start + i) % rest.length])];
}
__name(probeSample, "probeSample");

// src/rate-limit.ts
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
function record(key, value$1, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "record",
    reference: record,
    expects: "Object",
    async: false,
    key,
    value: value$1,
    message: message$1,
    "~run"(dataset, config$1) {
      const input = dataset.value;
      if (input && typeof input === "object") {
        dataset.typed = true;
        dataset.value = {};
        for (const entryKey in input) if (/* @__PURE__ */ _isValidObjectKey(input, entryKey)) {
          const entryValue = input[entryKey];
          const keyDataset = this.key["~run"]({ value: entryKey }, config$1);
          if (keyDataset.issues) {
            const pathItem = {
              type: "object",
              origin: "key",
              input,
              key: entryKey,
              value: entryValue
            };
            for (const issue of keyDataset.issues) {
              issue.path = [pathItem];
              dataset.issues?.push(issue);
            }
            if (!dataset.issues) dataset.issues = keyDataset.issues;
            if (config$1.abortEarly) {
              dataset.typed = false;
              break;
            }
          }
          const valueDataset = this.value["~run"]({ value: entryValue }, config$1);
          if (valueDataset.issues) {
            const pathItem = {
              type: "object",
              origin: "value",
              input,
              key: entryKey,
              value: entryValue
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
          if (!keyDataset.typed || !valueDataset.typed) dataset.typed = false;
          if (keyDataset.typed) dataset.value[keyDataset.value] = valueDataset.value;
        }
      } else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
__name(record, "record");
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
function unknown() {
  return _standardSchema({
    kind: "schema",
    type: "unknown",
    reference: unknown,
    expects: "unknown",
    async: false,
    "~run"(dataset) {
      dataset.typed = true;
      return dataset;
    }
  });
}
__name(unknown, "unknown");
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

// src/risk/limits.ts
var RISK_RULES = {
  /** Uses of one card number (anonymous authorize and pay, a2c/create's receiver_card), across all receipts and users. */
  card_uses_per_hour: { subject: "card", windowMs: 36e5, fallback: 10 },
  /** Distinct card numbers one user uses; a card counts from its first use in the window. */
  user_cards_per_day: { subject: "user", windowMs: 864e5, fallback: 5 },
  /** OTP sends (authorize, token or number) one user asks for. */
  user_otp_sends_per_day: { subject: "user", windowMs: 864e5, fallback: 20 },
  /** OTP sends to one card, by its number's or its token's fingerprint. */
  card_otp_sends_per_day: { subject: "card", windowMs: 864e5, fallback: 10 }
};
var Limit = union(
  [pipe(number(), integer(), minValue(1), maxValue(Number.MAX_SAFE_INTEGER)), literal("off")],
  'each limit must be a positive integer or "off"'
);
var RiskLimitsSetting = strictObject(
  Object.fromEntries(Object.keys(RISK_RULES).map((rule) => [rule, optional(Limit)])),
  `RISK_LIMITS must be a JSON object of the limits ${Object.keys(RISK_RULES).join(", ")}, and no other key`
);
var DEFAULT_RISK_LIMITS = Object.fromEntries(
  Object.entries(RISK_RULES).map(([rule, { fallback }]) => [rule, fallback])
);
function parseRiskLimits(value) {
  const text = typeof value === "string" ? value.trim() : "";
  if (!text) return { limits: DEFAULT_RISK_LIMITS, problem: null };
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return { limits: DEFAULT_RISK_LIMITS, problem: `RISK_LIMITS is not JSON (rule 13's limits, e.g. {"card_uses_per_hour": 10}).` };
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

// src/shards.ts
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
    const previous = previousTidShardLayouts(env.TID_INDEX_SHARDS_PREVIOUS).map(resolve).sort((a, b) => b.length - a.length);
    const all = [...current];
    for (const shard of previous.flat()) if (!all.some((known) => known.binding === shard.binding)) all.push(shard);
    found = { current, previous, all };
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
  const { previous } = layout(env);
  const places = [await eventShardFor(env, recordId)];
  for (const list of previous) places.push(list[await eventShardIndex(list.length, recordId)]);
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
  const { previous } = layout(env);
  const places = [await tidShardFor(env, owner, tid)];
  for (const list of previous) places.push(list[await tidShardIndex(list.length, owner, tid)]);
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

// src/guard.ts
function eventQueueProblems(env) {
  if (typeof env.EVENTS?.send === "function") return [];
  return ["The queue binding EVENTS is missing (see [[queues.producers]] in wrangler.toml): events cannot be published."];
}
__name(eventQueueProblems, "eventQueueProblems");
var CHECKS = [
  credentialProblems,
  rateLimitProblems,
  riskProblems,
  eventQueueProblems,
  webhookSecretProblems,
  expiryProblems,
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

// src/upstream/calls.ts
var STATE = { created: 0, paid: 4, held: 5, cancelled: 21, awaitingSupplier: 57 };
var KNOWN_STATES = new Set(Object.values(STATE));
var isKnownState = /* @__PURE__ */ __name((state) => typeof state === "number" && KNOWN_STATES.has(state), "isKnownState");

// src/kinds.ts
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
    }
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

// src/events/types.ts
var EVENT_TYPES = {
  "receipt.created": "A receipt was created (state 0).",
  "receipt.paid": "A receipt is paid (state 4): by pay, by hold-confirm, or when the supplier confirmed a payment that awaited it.",
  "receipt.held": "A hold receipt's amount is blocked on the card (state 5); hold-confirm debits it.",
  "receipt.awaiting_supplier": "A receipt was paid but awaits the supplier's confirmation (state 57); receipt.paid or receipt.cancelled follows.",
  "receipt.cancelled": "A receipt is cancelled (state 21): by cancel, by the supplier's refusal, after three failed OTP guesses, or by the gateway when it expired unpaid or its hold was not confirmed in time (rule 12: `data.reason` `expired` or `hold_expired`). Where the payment service refused that cancel, `data.closed_at_edge` is true and `data.object.state` shows what the payment service shows (0 or 5): ask its support to cancel it.",
  "receipt.otp_attempts_exhausted": "The third failed OTP guess ended a receipt; receipt.cancelled follows once the payment service has cancelled it.",
  "transfer.created": "A card-to-card transfer was created.",
  "transfer.paid": "A transfer is paid.",
  "transfer.cancelled": "A transfer is cancelled.",
  "transfer.expired": "A transfer still unpaid RECEIPT_EXPIRY_HOURS after its creation is closed at the gateway (rule 12; `data.reason` `expired`): every later operation on it answers `receipt_expired`.",
  "transfer.otp_attempts_exhausted": "The third failed OTP guess closed a transfer at the gateway: every later operation on it is refused."
};
var EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES);
var DELIVERY_STATUSES = ["pending", "delivered", "failed"];
var kindOfEvent = /* @__PURE__ */ __name((type) => Object.keys(KINDS).find((kind) => type.startsWith(`${kind}.`)) ?? "receipt", "kindOfEvent");
var kindOf = kindOfEvent;
var EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
function recordIdOf(event) {
  return event.data.object[KINDS[kindOfEvent(event.type)].idField];
}
__name(recordIdOf, "recordIdOf");
function assertWellFormed(event) {
  const problem = !EVENT_ID.test(event.id) ? "its id is not evt_<ULID>" : !Object.hasOwn(EVENT_TYPES, event.type) ? `its type ${JSON.stringify(event.type)} is not an event type` : !Number.isSafeInteger(event.sequence) || event.sequence < 1 ? "its sequence is not a positive integer" : typeof recordIdOf(event) !== "string" || recordIdOf(event) === "" ? `its data.object has no ${KINDS[kindOfEvent(event.type)].idField}` : null;
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
  "transfer.expired": 11
};
var DELIVERY_STATUS_CODES = { pending: 0, delivered: 1, failed: 2 };
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
async function recordEvents(db, items, now = clock.now()) {
  const pending = [];
  for (let start = 0; start < items.length; start += MAX_EVENTS_PER_WRITE) {
    const chunk = items.slice(start, start + MAX_EVENTS_PER_WRITE).map(unpack);
    const inserts = chunk.map(
      ({ event }) => db.prepare(
        `INSERT INTO events (id, record_id, type, next_attempt_at, pending_since, watched)
           VALUES (?1, ?2, ?3, ?4, ?4, CASE WHEN ?1 <= (SELECT MAX(id) FROM events_cursors) THEN 1 END)
           ON CONFLICT (id) DO NOTHING`
      ).bind(event.id, recordIdOf(event), EVENT_TYPE_CODES[event.type], now)
    );
    const ids = chunk.map(({ event }) => event.id);
    const stillPending = db.prepare(`SELECT id FROM events WHERE status = 0 AND id IN (${ids.map((_, i) => `?${i + 1}`).join(", ")})`).bind(...ids);
    const results = await db.batch([...inserts, stillPending]);
    const bodyOf = new Map(chunk.map(({ event, body }) => [event.id, body]));
    pending.push(...(results.at(-1)?.results ?? []).map(({ id }) => ({ id, payload: bodyOf.get(id) })));
  }
  return pending;
}
__name(recordEvents, "recordEvents");
async function findEvent(db, id) {
  const row = await db.prepare("SELECT * FROM events WHERE id = ?1").bind(id).first();
  return row ? decodeRow(row) : null;
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
  const page2 = /* @__PURE__ */ __name((extra, from = "events") => {
    const all = [...where, ...extra];
    return `SELECT * FROM ${from} ${all.length ? `WHERE ${all.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${limit}`;
  }, "page");
  const watchedOnly = "events INDEXED BY events_watched";
  let sql = page2([]);
  if (query.delivery === "failed") sql = page2(["watched = 1"], watchedOnly);
  else if (query.delivery === "pending") {
    sql = `SELECT * FROM (SELECT * FROM (${page2(["watched = 1"], watchedOnly)})
           UNION ALL SELECT * FROM (${page2(["watched IS NULL", "id > (SELECT id FROM events_cursors WHERE name = 'sweep')"])}))
           ORDER BY id DESC LIMIT ${limit}`;
  }
  const { results } = await db.prepare(sql).bind(...params).all();
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
    const { results } = await db.prepare(`SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?${params.push(query.limit + 1 - rows.length)}`).bind(...params).all();
    rows.push(...results);
    if (rows.length > query.limit) break;
  }
  return { rows: rows.slice(0, query.limit).map(decodeRow), hasMore: rows.length > query.limit };
}
__name(listEventsIn, "listEventsIn");
async function eventsIn(db, ids) {
  const rows = [];
  for (const chunk of inChunks(ids)) {
    const { results } = await db.prepare(`SELECT * FROM events WHERE id IN (${placeholders(chunk)})`).bind(...chunk).all();
    rows.push(...results.map(decodeRow));
  }
  return rows;
}
__name(eventsIn, "eventsIn");
async function eventStatuses(db, ids) {
  const { results } = await db.prepare(`SELECT id, status FROM events WHERE id IN (${ids.map((_, i) => `?${i + 1}`).join(", ")})`).bind(...ids).all();
  return new Map(results.map((row) => [row.id, row.status]));
}
__name(eventStatuses, "eventStatuses");
async function holdsAnyOf(db, ids) {
  for (const chunk of inChunks(ids)) {
    const row = await db.prepare(`SELECT 1 AS found FROM events WHERE id IN (${placeholders(chunk)}) LIMIT 1`).bind(...chunk).first();
    if (row !== null) return true;
  }
  return false;
}
__name(holdsAnyOf, "holdsAnyOf");
async function recordDelivered(db, id, outcome) {
  await db.prepare(
    `UPDATE events SET status = 1, attempts = attempts + 1, last_status = ?2, last_error = NULL, delivered_at = ?3
       WHERE id = ?1`
  ).bind(id, outcome.status, outcome.at).run();
}
__name(recordDelivered, "recordDelivered");
async function recordFailedAttempt(db, id, outcome) {
  await db.prepare("UPDATE events SET attempts = attempts + 1, last_status = ?2, last_error = ?3, next_attempt_at = ?4 WHERE id = ?1").bind(id, outcome.status, outcome.error, outcome.nextAttemptAt).run();
}
__name(recordFailedAttempt, "recordFailedAttempt");
async function recordDeadLettered(db, ids) {
  if (ids.length === 0) return;
  await db.batch(ids.map((id) => db.prepare("UPDATE events SET status = 2, watched = 1 WHERE id = ?1 AND status = 0").bind(id)));
}
__name(recordDeadLettered, "recordDeadLettered");
async function markPendingAgain(db, id, now = clock.now()) {
  const before = await findEvent(db, id);
  if (!before) return null;
  await db.prepare("UPDATE events SET status = 0, delivered_at = NULL, next_attempt_at = ?2, pending_since = ?2, watched = 1 WHERE id = ?1").bind(id, now).run();
  return before;
}
__name(markPendingAgain, "markPendingAgain");
async function restoreDelivery(db, row) {
  await db.prepare("UPDATE events SET status = ?2, delivered_at = ?3 WHERE id = ?1 AND status = 0").bind(row.id, DELIVERY_STATUS_CODES[row.delivery_status], row.delivered_at).run();
}
__name(restoreDelivery, "restoreDelivery");
async function pruneWatched(db, status, olderThanMs, limit, now = clock.now()) {
  const result = await db.prepare(
    `DELETE FROM events WHERE id IN (
         SELECT id FROM events WHERE watched = 1 AND status = ?1 AND id < ?2 ORDER BY id LIMIT ?3)`
  ).bind(DELIVERY_STATUS_CODES[status], idAt(now - olderThanMs), limit).run();
  return result.meta.changes;
}
__name(pruneWatched, "pruneWatched");
var advanceWalk = /* @__PURE__ */ __name((name) => `UPDATE events_cursors SET prev = id,
     id = COALESCE((SELECT MAX(id) FROM (SELECT id FROM events WHERE id > events_cursors.id AND id < ?1 ORDER BY id LIMIT ?2)), id)
   WHERE name = '${name}' AND (prev <> id OR EXISTS (SELECT 1 FROM events WHERE id > events_cursors.id AND id < ?1))`, "advanceWalk");
var walkedBatch = /* @__PURE__ */ __name((name) => `id > (SELECT prev FROM events_cursors WHERE name = '${name}') AND id <= (SELECT id FROM events_cursors WHERE name = '${name}')`, "walkedBatch");
async function pruneDelivered(db, olderThanMs, limit, now = clock.now()) {
  const cutoff = idAt(now - olderThanMs);
  const [, , deleted, ahead] = await db.batch([
    db.prepare(advanceWalk("prune")).bind(cutoff, limit),
    db.prepare(`UPDATE events SET watched = 1 WHERE ${walkedBatch("prune")} AND status <> 1 AND watched IS NULL`),
    db.prepare(`DELETE FROM events WHERE ${walkedBatch("prune")} AND status = 1`),
    db.prepare("SELECT EXISTS (SELECT 1 FROM events WHERE id > (SELECT id FROM events_cursors WHERE name = 'prune') AND id < ?1) AS more").bind(cutoff)
  ]);
  return { removed: deleted?.meta.changes ?? 0, more: (ahead?.results[0]?.more ?? 0) === 1 };
}
__name(pruneDelivered, "pruneDelivered");
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
async function logEvents(env, items, now = clock.now()) {
  const groups = await byShard(env, items, (item) => recordIdOf(unpack(item).event));
  return (await inPool(groups, ([db, group]) => recordEvents(db, group, now))).flat();
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
    if (db) logged.set(id, { db, pending: statuses.get(db).get(id) === DELIVERY_STATUS_CODES.pending });
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
  let response;
  try {
    response = await fetch(webhook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "payments-gateway-webhooks/1",
        "webhook-id": message2.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signWebhook(webhook.keys, message2.id, timestamp, message2.payload)
      },
      body: message2.payload,
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
  const text = await response.text().catch(() => "");
  const snippet = String(redact(text.slice(0, ERROR_SNIPPET))).trim();
  return { ok: false, status: response.status, error: `HTTP ${response.status}${snippet ? `: ${snippet}` : ""}` };
}
__name(postEvent, "postEvent");
var isEventMessage = /* @__PURE__ */ __name((body) => typeof body?.id === "string" && typeof body.payload === "string", "isEventMessage");
async function deliver(env, { message: message2, db }) {
  const { id } = message2.body;
  const outcome = await postEvent(env, message2.body);
  if (outcome.ok) {
    message2.ack();
    log("info", "event_delivered", { event_id: id, attempt: message2.attempts, status: outcome.status });
    try {
      if (db) await recordDelivered(db, id, { status: outcome.status, at: clock.now() });
    } catch (err) {
      log("error", "event_log_write_failed", { event_id: id, error: String(err) });
    }
    return;
  }
  const delaySeconds = retryDelaySeconds(retrySchedule(env), message2.attempts);
  message2.retry({ delaySeconds });
  log("warn", "event_delivery_failed", {
    event_id: id,
    attempt: message2.attempts,
    status: outcome.status,
    error: outcome.error,
    retry_in_seconds: delaySeconds
  });
  try {
    if (db) await recordFailedAttempt(db, id, { status: outcome.status, error: outcome.error, nextAttemptAt: clock.now() + delaySeconds * 1e3 });
  } catch (err) {
    log("error", "event_log_write_failed", { event_id: id, error: String(err) });
  }
}
__name(deliver, "deliver");
async function holdBack(env, held, problems) {
  const schedule = retrySchedule(env);
  const delays = held.map(({ message: message2 }) => retryDelaySeconds(schedule, message2.attempts));
  for (const [i, { message: message2 }] of held.entries()) message2.retry({ delaySeconds: delays[i] });
  log("error", "service_misconfigured", { problems: problems.join(" "), held_events: held.length });
  const error = "not sent: this deployment is misconfigured (503 service_misconfigured names the problem)";
  const now = clock.now();
  await inPool(held, async ({ message: message2, db }, i) => {
    if (!db) return;
    await recordFailedAttempt(db, message2.body.id, { status: null, error, nextAttemptAt: now + delays[i] * 1e3 }).catch(
      (err) => log("error", "event_log_write_failed", { event_id: message2.body.id, error: String(err) })
    );
  });
}
__name(holdBack, "holdBack");
var handleEventBatch = /* @__PURE__ */ __name(async (batch, env) => {
  const received = [];
  for (const message2 of batch.messages) {
    const event = isEventMessage(message2.body) ? parseEvent(message2.body.payload) : null;
    if (event && event.id === message2.body.id) received.push({ message: message2, event });
    else {
      message2.ack();
      log("error", "event_message_malformed", { message_id: message2.id, queue: batch.queue });
    }
  }
  const logged = await findLogged(
    env,
    received.map(({ event }) => event)
  );
  const notLogged = /* @__PURE__ */ __name((message2) => log("warn", "event_not_logged", { event_id: message2.body.id, queue: batch.queue }), "notLogged");
  if (isDeadLetterQueue(batch.queue)) {
    const groups = /* @__PURE__ */ new Map();
    for (const { event } of received) {
      const at = logged.get(event.id);
      if (at) groups.set(at.db, [...groups.get(at.db) ?? [], event.id]);
    }
    await inPool([...groups], ([db, ids]) => recordDeadLettered(db, ids));
    for (const { message: message2 } of received) {
      message2.ack();
      if (!logged.has(message2.body.id)) notLogged(message2);
      log("error", "event_delivery_abandoned", { event_id: message2.body.id, queue: batch.queue });
    }
    return;
  }
  const toDeliver = [];
  for (const { message: message2 } of received) {
    const at = logged.get(message2.body.id);
    if (!at) notLogged(message2);
    if (!at || at.pending) toDeliver.push({ message: message2, db: at?.db ?? null });
    else message2.ack();
  }
  const problems = configProblems(env);
  if (problems.length > 0) return holdBack(env, toDeliver, problems);
  await inPool(toDeliver, (due) => deliver(env, due), DELIVERY_PARALLELISM);
}, "handleEventBatch");
function parseEvent(payload) {
  try {
    const event = JSON.parse(payload);
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
  let size2 = 0;
  for (const message2 of messages) {
    const n = bytes(message2);
    if (current.length > 0 && (current.length === MAX_MESSAGES_PER_SEND || size2 + n > MAX_BYTES_PER_SEND)) {
      batches.push(current);
      current = [];
      size2 = 0;
    }
    current.push(message2);
    size2 += n;
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
  expired: "SELECT id FROM events WHERE watched = 1 AND status = 0 AND pending_since < ?1 ORDER BY id LIMIT ?2",
  overdue: "SELECT id FROM events WHERE watched = 1 AND status = 0 AND next_attempt_at < ?1 ORDER BY id LIMIT ?2"
};
var SWEEP_WALK = [
  advanceWalk("sweep"),
  `UPDATE events SET watched = 1 WHERE ${walkedBatch("sweep")} AND status <> 1 AND watched IS NULL`
];
async function sweepDatabase(db, now, settings, requeues) {
  const [, , failed, overdue] = await db.batch([
    db.prepare(SWEEP_WALK[0]).bind(idAt(now - settings.staleMs), SWEEP_WALK_LIMIT),
    db.prepare(SWEEP_WALK[1]),
    db.prepare(`UPDATE events SET status = 2 WHERE id IN (${SWEEP_SELECTS.expired}) RETURNING id`).bind(now - settings.horizonMs, FAIL_LIMIT),
    db.prepare(`UPDATE events SET next_attempt_at = ?3 WHERE id IN (${SWEEP_SELECTS.overdue}) RETURNING *`).bind(now - settings.staleMs, requeues, now)
  ]);
  return {
    failed: (failed?.results ?? []).map((row) => String(row.id)),
    overdue: (overdue?.results ?? []).map(decodeRow)
  };
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

// src/caller.ts
var ownerOf = /* @__PURE__ */ __name((caller) => `${caller.kind}:${caller.id}`, "ownerOf");
var eventOwner = /* @__PURE__ */ __name((owner) => owner.startsWith("user:") ? owner.slice("user:".length) : "partner", "eventOwner");
var mayAccess = /* @__PURE__ */ __name((caller, owner) => caller.kind === "partner" || ownerOf(caller) === owner, "mayAccess");

// src/keyed-hash.ts
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

// src/tid-index.ts
var KIND_CODES = { receipt: 0, transfer: 1 };
var STATUS_COMPLETED = 1;
var COLUMNS = "owner, tid, lower(hex(upstream_tid)) AS upstream_hex, kind, status, lower(hex(fingerprint)) AS fingerprint, claim_token, receipt_id, created_at, updated_at";
var SELECT_KEY = `SELECT ${COLUMNS} FROM tid_index WHERE owner = ?1 AND tid = ?2`;
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
function insertClaim(db, req, token, createdAt, updatedAt) {
  return db.prepare(
    `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
       VALUES (?1, ?2, unhex(?3), ?4, 0, unhex(?5), ?6, ?7, ?8) ON CONFLICT DO NOTHING`
  ).bind(req.owner, req.tid, storedUpstream(req.tid, req.upstreamTid), KIND_CODES[req.kind], req.fingerprint, token, createdAt, updatedAt);
}
__name(insertClaim, "insertClaim");
async function claimTid(db, req, now = clock.now()) {
  for (let round = 0; round < 2; round++) {
    const token = crypto.randomUUID();
    const [inserted, found] = await db.batch([insertClaim(db, req, token, now, now), db.prepare(SELECT_KEY).bind(req.owner, req.tid)]);
    if (inserted.meta.changes === 1) return { kind: "claimed", token, takeover: false, upstreamTid: req.upstreamTid };
    const stored = found?.results[0];
    if (!stored) {
      if (req.upstreamTid !== req.tid && await findByUpstreamTid(db, req.upstreamTid)) return { kind: "conflict" };
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
    const taken = await db.prepare("UPDATE tid_index SET claim_token = ?1, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5 AND status = 0").bind(token, now, req.owner, req.tid, row.claim_token).run();
    if (taken.meta.changes === 1) return { kind: "claimed", token, takeover: true, upstreamTid: row.upstream_tid };
    return { kind: "in_progress", retryAfterSeconds: 1 };
  }
  return { kind: "in_progress", retryAfterSeconds: 1 };
}
__name(claimTid, "claimTid");
function leaseExpired(row, leaseMs2, now) {
  return row.status === "pending" && now - row.updated_at >= leaseMs2;
}
__name(leaseExpired, "leaseExpired");
async function completeTid(db, claim, receiptId, answeredAt = clock.now()) {
  const result = await db.prepare(
    "UPDATE tid_index SET status = 1, receipt_id = ?1, claim_token = NULL, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5"
  ).bind(receiptId, answeredAt, claim.owner, claim.tid, claim.token).run();
  return result.meta.changes === 1;
}
__name(completeTid, "completeTid");
async function releaseTid(db, claim) {
  await db.prepare("DELETE FROM tid_index WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3 AND status = 0").bind(claim.owner, claim.tid, claim.token).run();
}
__name(releaseTid, "releaseTid");
async function expireTid(db, claim) {
  await db.prepare("UPDATE tid_index SET status = 0, receipt_id = NULL, updated_at = 0 WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3").bind(claim.owner, claim.tid, claim.token).run();
}
__name(expireTid, "expireTid");
async function findTid(db, owner, tid) {
  const raw2 = await db.prepare(SELECT_KEY).bind(owner, tid).first();
  return raw2 ? toRow(raw2) : null;
}
__name(findTid, "findTid");
async function deleteTids(db, retentionMs, limit, now = clock.now()) {
  const result = await db.prepare(
    `DELETE FROM tid_index WHERE rowid IN (
         SELECT rowid FROM tid_index WHERE status = 1 AND updated_at < ?1 ORDER BY updated_at LIMIT ?2)`
  ).bind(now - retentionMs, limit).run();
  return result.meta.changes;
}
__name(deleteTids, "deleteTids");
async function findByUpstreamTid(db, upstreamTid) {
  return await db.prepare("SELECT 1 AS found FROM tid_index WHERE upstream_tid = unhex(?1)").bind(upstreamTid.replaceAll("-", "")).first() !== null;
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
var FENCE_TOKEN = "moved";
var FENCE_UNTIL = Number.MAX_SAFE_INTEGER;
var isFence = /* @__PURE__ */ __name((row) => row.claim_token === FENCE_TOKEN, "isFence");
async function claimIndexFor(env, req, now = clock.now()) {
  const [here, ...before] = await tidShardsFor(env, req.owner, req.tid);
  if (before.length === 0) return here;
  const claimedBefore = await inPool(before, async (shard) => {
    const { db } = shard;
    const [, found] = await db.batch([
      insertClaim(db, req, FENCE_TOKEN, now, FENCE_UNTIL),
      db.prepare(SELECT_KEY).bind(req.owner, req.tid)
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
  const rows = await inPool(places, async ({ db }) => ({ db, row: await findTid(db, owner, tid) }));
  return (rows.find(({ row }) => row !== null && !isFence(row)) ?? rows[0]).db;
}
__name(readIndexFor, "readIndexFor");
async function deleteFences(db, retentionMs, limit, now = clock.now()) {
  const result = await db.prepare(
    `DELETE FROM tid_index WHERE rowid IN (
         SELECT rowid FROM tid_index WHERE claim_token = '${FENCE_TOKEN}' AND created_at < ?1 ORDER BY created_at LIMIT ?2)`
  ).bind(now - retentionMs, limit).run();
  return result.meta.changes;
}
__name(deleteFences, "deleteFences");
async function latestTids(env, limit) {
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db.prepare(`SELECT ${COLUMNS} FROM tid_index WHERE claim_token IS NOT '${FENCE_TOKEN}' ORDER BY created_at DESC, rowid DESC LIMIT ?1`).bind(limit).all();
    return results.map(toRow);
  });
  return pages.flat().sort((a, b) => b.created_at - a.created_at).slice(0, limit);
}
__name(latestTids, "latestTids");

// src/console/data.ts
var LATEST_RECORDS = 50;
var EVENTS_PER_RECORD = 100;
var MAX_ID_LENGTH = 128;
function currentState(audit, latest) {
  const last = audit.at(-1);
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
      createdAt: row.created_at
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

// src/lifecycle.ts
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
  const ending = closedAtEdge2 ? "it is closed at the gateway" : "it is cancelled";
  if (counts.unconfirmed === 0) return `${GUESS_LIMIT_WORD} wrong OTPs: ${ending}. Create a new ${noun}.`;
  const parts = [
    counts.wrong > 0 ? `${counts.wrong} wrong` : null,
    `${counts.unconfirmed} whose answer was lost (counted as guesses, since the payment service may have judged them)`
  ].filter(Boolean);
  return `${GUESS_LIMIT_WORD} OTP guesses failed (${parts.join(", ")}): ${ending}. Create a new ${noun}.`;
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
function expiryOutcomeOf(answer, stillExpirable) {
  if (answer.ok) return "ended";
  if (answer.outcome === "unknown") return "unknown";
  if (answer.code === "upstream_unavailable" || answer.code === "rate_limited") return "retry";
  return stillExpirable ? "edge" : "ended";
}
__name(expiryOutcomeOf, "expiryOutcomeOf");
function expiresAt(facts, windows) {
  const rule = expiryRuleOf(facts.kind, facts.state);
  if (!rule || facts.edgeClosed) return null;
  if (facts.expiry !== null) return facts.phase === "expired" ? 0 : null;
  if (facts.phase !== "created" && facts.phase !== "held") return null;
  return (rule.from === "held" ? facts.heldAt : facts.createdAt) + windows[rule.window];
}
__name(expiresAt, "expiresAt");
var expiryCause = /* @__PURE__ */ __name((facts, state) => facts.expiry !== null && state === STATE.cancelled ? { reason: facts.expiry } : null, "expiryCause");
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
function listPage(records, now, limit) {
  const body = records.length === 0 ? html`<p class="empty">No receipts yet — run the README's walk-through ("A payment, step by step") against this gateway, then reload.</p>` : html`<table>
          <thead><tr><th>id</th><th>kind</th><th>owner</th><th>tid</th><th>state</th><th class="num">amount</th><th class="num">age</th></tr></thead>
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
function auditTable(audit) {
  return html`<table>
    <thead><tr><th>time</th><th>operation</th><th>actor</th><th>outcome</th><th>state after</th><th>request id</th></tr></thead>
    <tbody>
      ${audit.map(
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

// ../../../work/main/node_modules/hono/dist/utils/handler.js
var findTargetHandler = /* @__PURE__ */ __name((handler) => {
  return handler["__COMPOSED_HANDLER"] ? findTargetHandler(handler[COMPOSED_HANDLER]) : handler;
}, "findTargetHandler");

// ../../../work/main/node_modules/hono/dist/utils/cookie.js
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
var toPascalCase = /* @__PURE__ */ __name((text) => text.split(/[\W_]+/).filter(Boolean).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(""), "toPascalCase");
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
function mergeRequestBodies(previous, current) {
  if (!previous || !current || "$ref" in previous || "$ref" in current) {
    return current;
  }
  return {
    ...previous,
    ...current,
    content: {
      ...previous.content,
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
var DEFAULT_OPTIONS2 = {
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
async function generateSpecs(hono, options = DEFAULT_OPTIONS2, c) {
  const ctx = {
    components: {},
    // @ts-expect-error
    options: {
      ...DEFAULT_OPTIONS2,
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

// src/events/examples.ts
var PUBLISHED = RECEIPT_CREATED.create_date + 6e4;
var EVENT_OBJECTS = {
  "receipt.created": [RECEIPT_CREATED, null],
  "receipt.paid": [RECEIPT_PAID, 0],
  "receipt.held": [RECEIPT_HELD, 0],
  "receipt.awaiting_supplier": [{ ...RECEIPT_PAID, state: 57, ofd: null }, 0],
  "receipt.cancelled": [RECEIPT_CANCELLED, 4],
  "receipt.otp_attempts_exhausted": [RECEIPT_CREATED, 0],
  "transfer.created": [TRANSFER_CREATED, null],
  "transfer.paid": [TRANSFER_PAID, 0],
  "transfer.cancelled": [{ ...TRANSFER_CREATED, state: 21, cancel_date: RECEIPT_CANCELLED.cancel_date }, 0],
  "transfer.otp_attempts_exhausted": [TRANSFER_CREATED, 0],
  "transfer.expired": [TRANSFER_CREATED, 0]
};
var CAUSES = {
  "transfer.expired": { reason: "expired", closed_at_edge: true }
};
var SEQUENCE = { "receipt.created": 1, "transfer.created": 1, "receipt.cancelled": 3 };
function eventExample(type) {
  const [object2, previous] = EVENT_OBJECTS[type];
  return {
    id: EXAMPLE_EVENT_ID,
    type,
    created: PUBLISHED,
    sequence: SEQUENCE[type] ?? 2,
    request_id: EXAMPLE_REQUEST_ID,
    data: { object: object2, owner: "partner", previous_state: previous, ...CAUSES[type] }
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

// src/schemas.ts
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
var Text = /* @__PURE__ */ __name((max) => pipe(string(), ...MaxText(max, `must be at most ${max} characters`)), "Text");
var AccountEntry = pipe(
  object({
    key: pipe(string(), minLength(1, "key must not be empty"), ...MaxText(64, "key must be at most 64 characters")),
    value: Text(256),
    label: optional(Text(128))
  }),
  title("AccountEntry"),
  description("One field of the merchant's account form (a phone number, a contract number).")
);
var EXAMPLE_CARD = { number: "8600000000000007", expire: "3012" };
var CreateReceiptRequest = pipe(
  object({
    tid: Tid,
    amount: Amount,
    merchant_id: pipe(PositiveId("merchant_id"), description("Merchant id at the payment service.")),
    account: pipe(array(AccountEntry), maxLength(20, "at most 20 account entries")),
    description: optional(Text(256)),
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
var ReceiptIdRequest = pipe(object({ id: ReceiptId }), examples([{ id: EXAMPLE_RECEIPT_ID }]), title("ReceiptIdRequest"));
var TokenCard = pipe(object({ token: CardToken }), title("TokenCard"));
var NumberCard = pipe(object({ number: CardNumber, expire: Expire }), title("NumberCard"));
var Nullable = /* @__PURE__ */ __name((s) => nullable(s), "Nullable");
var Merchant = pipe(
  object({
    merchant_id: Int(),
    merchant_name: string(),
    category_id: optional(Int()),
    category_name: optional(string()),
    logo_url: optional(Nullable(string())),
    min_amount: optional(Int("Tiyin.")),
    max_amount: optional(Int("Tiyin.")),
    fields: optional(array(unknown()))
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
    ofd: Nullable(record(string(), unknown())),
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
      picklist(["card_uses_per_hour", "user_cards_per_day", "user_otp_sends_per_day", "card_otp_sends_per_day"]),
      description("risk_limited: the limit of rule 13 the call is past (RISK_LIMITS names each).")
    )
  )
});
var ErrorBody = pipe(object({ error: ErrorFields }), title("Error"));

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
var Event = pipe(
  object({
    id: EventId,
    type: EventTypeName,
    created: Int("Milliseconds since the epoch."),
    sequence: pipe(
      number(),
      integer(),
      int64(),
      description(
        "Per receipt or transfer: 1, 2, ... Order of delivery is not guaranteed; ignore an event whose sequence is not above the last one applied."
      )
    ),
    request_id: pipe(string(), description("The X-Request-Id of the call that caused it (or of the gateway's own reconciliation).")),
    data: object({
      object: pipe(
        union([Receipt, TransferReceipt]),
        description("The Receipt (receipt.*) or Transfer receipt (transfer.*) as the API returns it: masked card numbers only.")
      ),
      owner: pipe(string(), description("`partner`, or the `sub` of the user who owns it.")),
      previous_state: pipe(nullable(ReceiptState), description("The state before this change; null for a create.")),
      reason: optional(
        pipe(
          picklist(["expired", "hold_expired"]),
          description(
            "Why, where the gateway itself caused the change (rule 12): `expired` (unpaid RECEIPT_EXPIRY_HOURS after its creation), `hold_expired` (held and not confirmed within HOLD_EXPIRY_DAYS)."
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
    })
  }),
  title("Event"),
  // Checked against this schema by test/docs/examples.test.ts.
  examples([eventExample("receipt.paid")]),
  description("An event: one change of a receipt or transfer, POSTed as JSON to WEBHOOK_URL and listed by events/list.")
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
var EventWithDelivery = object({ ...Event.entries, delivery: EventDelivery });
var ListEventsResult = object({
  events: pipe(
    array(EventWithDelivery),
    metadata({ maxItems: 100 }),
    description("Newest first; at most `limit`.")
  ),
  has_more: pipe(boolean(), description("Older events match too: ask again with `after` set to the last id of this page."))
});

// src/events/openapi.ts
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
                  allOf: [{ $ref: "#/components/schemas/Event" }, { type: "object", properties: { type: { type: "string", const: type } } }]
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

// src/openapi.ts
var IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Makes the request safe to repeat (rule 11): a repeat by the same caller of this operation on this record with the same key and body gets the first answer again (with `Idempotent-Replayed: true`) and reaches nothing upstream; another body is 409 `idempotency_key_reused`; while the first is in flight, 409 `operation_in_progress`. Use one key per logical operation (a UUID) and the same key on every retry. On a create it is accepted, and the tid decides (rule 1).",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]{1,255}$" }
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
var ERROR_CODE_SCHEMA = {
  type: "string",
  title: "ErrorCode",
  description: `What went wrong, as the contract names it. The HTTP status follows from the code.

| code | HTTP | meaning |
|---|---|---|
${ERROR_CODE_NAMES.map(
    (code) => `| \`${code}\` | ${ERROR_CODES[code].status} | ${ERROR_CODES[code].meaning} |`
  ).join("\n")}`,
  enum: [...ERROR_CODE_NAMES],
  "x-enum-descriptions": ERROR_CODE_NAMES.map((code) => ERROR_CODES[code].meaning)
};
function errorResponse(status, codes) {
  const headers = { "X-Request-Id": headerRef("X-Request-Id") };
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
    description: 'The partner receipt API of the payment service, proxied at the edge. Paths and bodies are the upstream\'s; the gateway adds tid uniqueness with safe retries, the three-wrong-OTPs rule, ownership checks and validation. Every error is `{"error": {"code", "message", "request_id", ...}}`; every response carries `X-Request-Id`. Calls without a valid partner key or user JWT answer 401 `unauthorized`. A deployment whose configuration is unsafe (development credentials in production, no way to verify callers) answers every call with 503 `service_misconfigured`, naming the problem. Every operation is a POST; another method answers 405 `method_not_allowed` with `Allow: POST`.'
  },
  tags: [
    { name: "Receipts", description: "Payment receipts: create, send the OTP, pay, hold-confirm, cancel, read." },
    { name: "Transfers (a2c)", description: "Card-to-card transfers: create, confirm, read." },
    { name: "Gateway", description: "The gateway's own operations (partner server key only): audit trails and events." },
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
  if (typeof title2 === "string" && names.has(title2) && (out.type !== void 0 || out.allOf !== void 0 || out.anyOf !== void 0)) {
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
  "OfdDetails",
  "AuthorizeResult",
  "Event",
  "Error",
  "ReceiptState",
  "TransferState",
  "AccountEntry",
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
  "ListEventsRequest",
  "ResendEventRequest",
  "EraseUserRequest",
  "ErasureAccepted"
]);
async function finish(generated) {
  const { webhooks, event } = await eventWebhooks();
  const error = (await resolver(ErrorBody).toOpenAPISchema()).schema;
  error.properties.error.properties.code = { $ref: "#/components/schemas/ErrorCode" };
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
  return {
    ...generated,
    servers: SERVERS,
    paths: { ...hoisted.paths, ...PROBES },
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
var probe = /* @__PURE__ */ __name((operationId, summary, description2, failure) => ({
  get: {
    operationId,
    summary,
    description: `${description2} Another method than GET or HEAD answers 405 \`method_not_allowed\` with \`Allow: GET, HEAD\`.`,
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
      "503": errorResponse(503, failure === "not_ready" ? ["not_ready", "service_misconfigured"] : ["service_misconfigured"])
    }
  }
}), "probe");
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
    "An authenticated probe of the upstream (check-id of an id that cannot exist: 404 means it answers and accepts the gateway's credential) and a D1 query, each within 2 s. 503 `not_ready` names what failed (never a secret), with `Retry-After`.",
    "not_ready"
  )
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

// src/erasure.ts
var ERASE_RECORDS_PER_RUN = 50;
var REQUESTS_PER_RUN = 10;
var ERASE_QUERIES_PER_RUN = 200;
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
        const { results: rows } = await db.prepare(
          `SELECT tid, CASE kind WHEN 1 THEN 'transfer' ELSE 'receipt' END AS kind, receipt_id
             FROM tid_index WHERE owner = ?1 AND tid > ?2 ORDER BY tid LIMIT ?3`
        ).bind(owner, after, limit).all();
        for (const row of rows) await eraseRecord(env, row);
        records += rows.length;
        queries++;
        progress[binding] = rows.length < limit ? true : rows[rows.length - 1].tid;
      }
    }
    const finished = allShards(env).every(({ binding }) => progress[binding] === true);
    if (finished) done++;
    queries++;
    await env.DB.prepare("UPDATE erasures SET cursor = ?1, done_at = ?2 WHERE user = ?3 AND requested_at <= ?4").bind(JSON.stringify(progress), finished ? now : null, request.user, now).run();
  }
  if (open.length > 0) log("info", "erasure_run", { now, records, requests_done: done, requests_open: open.length - done });
  return { records, done };
}
__name(runErasures, "runErasures");

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
    "May be repeated to resend, once `wait` ms have passed (`otp_resend_too_soon` before), and at most 5 times per receipt."
  ),
  authorizeReceiptAnonymous: prose("As authorize, with the card given by number and expiry.", "Neither is stored or logged."),
  payReceipt: prose(
    "Debits the card.",
    "`otp` is required when the receipt's `is_verify` is true.",
    "The third wrong OTP cancels the receipt (`otp_attempts_exhausted`); OTP submissions for one receipt are serialized (`operation_in_progress` for one that arrives while another is in flight).",
    "A receipt created with `is_hold` ends in state 5 (held)."
  ),
  payReceiptAnonymous: prose(
    "As pay, with the card given by number and expiry; the OTP is always required.",
    "Answers the reduced receipt (no `cancel_date`, `is_verify`, `rrn`, `card_number`)."
  ),
  confirmHold: prose("Debits the held amount (state 5 to 4) and fiscalizes the sale.", "Needs the hold function enabled in the deployment."),
  cancelReceipt: prose(
    "Cancels a created, held or paid receipt (state 21).",
    "Refused in state 21 or 57 and for QR merchants (`cancel_not_allowed`).",
    "Users may cancel only unpaid receipts; cancelling a paid one is for the partner backend."
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
    "The sender's token is never echoed back."
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
  listEvents: prose(
    "Events newest first, with how their delivery to WEBHOOK_URL stands, optionally only one receipt's (or transfer's), one type, or one delivery status.",
    "Page with `after`: the last id of the page before."
  ),
  resendEvent: prose(
    "Sends the event again, whatever its delivery status (typically `failed`), with the same `webhook-id`: its status is `pending` until that delivery's outcome.",
    "An unknown id is 404 `not_found`."
  ),
  eraseUser: prose(
    "Erases the user's personal data (rule 10): within 24 hours (in development within a minute) every phone number and `account` value of the receipts and transfers the user created is starred but its first and last two characters, in the tid index, the event log and the records; ids, amounts, states and times stay, and later events and answers carry the values erased.",
    "Answers 202 at once; asking again starts over (and takes in what the user created since)."
  )
};

// src/retention.ts
var DAY_MS = 864e5;
var RETENTION_DEFAULTS = {
  replayDays: 7,
  tidRetentionDays: 90,
  // 7, not 30: a delivered event is at the partner already, and its record keeps its body and audit trail for
  // RECORD_RETENTION_DAYS; undelivered ones stay 90 days. It keeps D1 at <= 1 KB a receipt (docs/capacity.md).
  deliveredEventsDays: 7,
  undeliveredEventsDays: 90,
  recordRetentionDays: 90,
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
  const replayMs = positive(env.TID_REPLAY_DAYS, d.replayDays) * DAY_MS;
  const deliveredEventsMs = positive(env.EVENTS_DELIVERED_RETENTION_DAYS, d.deliveredEventsDays) * DAY_MS;
  const undeliveredEventsMs = Math.max(deliveredEventsMs, positive(env.EVENTS_UNDELIVERED_RETENTION_DAYS, d.undeliveredEventsDays) * DAY_MS);
  return {
    replayMs,
    // Deleting a row before its answer expired would cut the replay window short.
    tidRetentionMs: Math.max(replayMs, positive(env.TID_RETENTION_DAYS, d.tidRetentionDays) * DAY_MS),
    deliveredEventsMs,
    undeliveredEventsMs,
    // A record keeps its events' bodies for the event log (src/events/bodies.ts): it outlives every event the
    // log may still list, each created by a change of the record, pruned at most undeliveredEventsMs after it.
    recordRetentionMs: Math.max(undeliveredEventsMs, positive(env.RECORD_RETENTION_DAYS, d.recordRetentionDays) * DAY_MS),
    batchSize: whole(env.RETENTION_BATCH_SIZE, d.batchSize),
    rounds: whole(env.RETENTION_ROUNDS, d.rounds)
  };
}
__name(retentionPolicy, "retentionPolicy");
var RETENTION_QUERIES_PER_ROUND = 9;
var SWEEP_QUERIES_PER_DATABASE = 4;
var cronQueriesPerDatabase = /* @__PURE__ */ __name((policy) => RETENTION_QUERIES_PER_ROUND * policy.rounds + SWEEP_QUERIES_PER_DATABASE, "cronQueriesPerDatabase");
function cronShards(env, now, policy = retentionPolicy(env)) {
  return cronSlice(allShards(env), databasesPerRun(cronQueriesPerDatabase(policy)), Math.floor(now / 6e4));
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
  const perShard = await inPool(shards, async ({ binding, db }) => ({
    binding,
    deleted: await run(`tids_deleted:${binding}`, (limit) => deleteTids(db, policy.tidRetentionMs, limit, now)),
    // A growing list's fences (src/tid-index.ts, claimIndexFor), once every row they stood for is gone.
    fences: await run(`tid_fences_deleted:${binding}`, (limit) => deleteFences(db, policy.tidRetentionMs, limit, now)),
    // The event log is spread over the same databases, by record id.
    delivered: await run(`events_delivered_pruned:${binding}`, (limit) => pruneDelivered(db, policy.deliveredEventsMs, limit, now)) + await run(`events_watched_delivered_pruned:${binding}`, (limit) => pruneWatched(db, "delivered", policy.deliveredEventsMs, limit, now)),
    failed: await run(`events_failed_pruned:${binding}`, (limit) => pruneWatched(db, "failed", policy.undeliveredEventsMs, limit, now)),
    pending: await run(`events_pending_pruned:${binding}`, (limit) => pruneWatched(db, "pending", policy.undeliveredEventsMs, limit, now))
  }));
  const tidShardCounts = Object.fromEntries(perShard.map(({ binding, deleted }) => [binding, { deleted }]));
  const sum = /* @__PURE__ */ __name((pick) => perShard.reduce((total, shard) => total + pick(shard), 0), "sum");
  const delivered = sum((shard) => shard.delivered);
  const failedEvents = sum((shard) => shard.failed);
  const pendingEvents = sum((shard) => shard.pending);
  const report = {
    tids_deleted: sum((shard) => shard.deleted),
    tid_fences_deleted: sum((shard) => shard.fences),
    events_delivered_pruned: delivered,
    events_undelivered_pruned: failedEvents + pendingEvents,
    backlog,
    tid_shards: tidShardCounts
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

// src/tid-cache.ts
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

// src/upstream/normalize.ts
var isObject = /* @__PURE__ */ __name((value) => typeof value === "object" && value !== null && !Array.isArray(value), "isObject");
function toMillis(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  if (value > 0 && value < 1e11) return value * 1e3;
  return value;
}
__name(toMillis, "toMillis");
var num = /* @__PURE__ */ __name((value, fallback = 0) => typeof value === "number" && Number.isFinite(value) ? value : fallback, "num");
var str = /* @__PURE__ */ __name((value) => typeof value === "string" ? value : null, "str");
function maskedCard(value) {
  const s = str(value);
  if (s === null) return null;
  return /^\d{13,19}$/.test(s) ? maskPan(s) : s;
}
__name(maskedCard, "maskedCard");
function accountEntries(value) {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((entry) => ({
    key: String(entry.key ?? ""),
    value: String(entry.value ?? ""),
    ...typeof entry.label === "string" ? { label: entry.label } : {}
  }));
}
__name(accountEntries, "accountEntries");
function merchant(value) {
  const m = isObject(value) ? value : {};
  return { ...m, merchant_id: num(m.merchant_id), merchant_name: String(m.merchant_name ?? "") };
}
__name(merchant, "merchant");
function readable(raw2, idKey) {
  if (!isObject(raw2)) return false;
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
    type: num(raw2.type, 1),
    description: str(raw2.description),
    merchant: merchant(raw2.merchant),
    account: accountEntries(raw2.account),
    ofd: isObject(raw2.ofd) ? raw2.ofd : null,
    amount: num(raw2.amount),
    init_amount: num(raw2.init_amount),
    currency: num(raw2.currency, 860),
    commission: num(raw2.commission ?? raw2.comission),
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
  const p = isObject(value) ? value : {};
  return {
    masked_pan: maskedCard(p.masked_pan) ?? "",
    ...typeof p.holder_name === "string" ? { holder_name: p.holder_name } : {},
    amount: num(p.amount),
    currency: num(p.currency, 860),
    commission: num(p.commission ?? p.comission),
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
    type: num(raw2.type, 6),
    created_date: toMillis(raw2.created_date) ?? 0,
    pay_date: toMillis(raw2.pay_date),
    cancel_date: toMillis(raw2.cancel_date),
    sender: party(raw2.sender),
    receiver: party(raw2.receiver),
    error: str(raw2.error),
    ofd: isObject(raw2.ofd) ? raw2.ofd : null,
    is_verify: raw2.is_verify === true
  };
}
__name(normalizeTransfer, "normalizeTransfer");
function normalizeAuthorize(raw2, id) {
  if (!isObject(raw2) || typeof raw2.wait !== "number" || !Number.isFinite(raw2.wait) || raw2.wait < 0) return void 0;
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
      const said = typeof envelope.error?.message === "string" ? String(redact(envelope.error.message)).slice(0, MAX_UPSTREAM_MESSAGE) : "";
      return unjudged({
        code: "upstream_refused",
        message: `The payment service refused the request with ${upstreamCode}${said ? `: ${said}` : ""}. Nothing was done.`,
        upstream_code: upstreamCode
      });
    }
    const { message: message2, ...rest } = mapping;
    const failure = {
      ...rest,
      message: message2 ?? "The payment service refused the request.",
      upstream_code: upstreamCode
    };
    if (failure.code === "otp_invalid" && typeof envelope.attempts_left === "number") failure.attempts_left = envelope.attempts_left;
    if (failure.code === "otp_resend_too_soon") failure.retry_after = Number(response.headers.get("retry-after")) || 1;
    if (failure.code === "amount_out_of_range") {
      if (typeof envelope.min_amount === "number") failure.min_amount = envelope.min_amount;
      if (typeof envelope.max_amount === "number") failure.max_amount = envelope.max_amount;
    }
    return { ok: false, outcome: "rejected", judged: !NOT_JUDGED.has(upstreamCode), failure, upstreamCode, ...after };
  }
  #log(path, started, outcome, status) {
    log("info", "upstream_call", {
      request_id: this.#requestId,
      path,
      status,
      outcome,
      duration_ms: Date.now() - started
    });
  }
};
var sameId = /* @__PURE__ */ __name((body, id) => body?.id === id ? body : void 0, "sameId");
var sameTransfer = /* @__PURE__ */ __name((body, id) => body?.receipt_id === id ? body : void 0, "sameTransfer");
function unknownOutcome(code, message2) {
  return { ok: false, outcome: "unknown", judged: true, failure: { code, message: message2 } };
}
__name(unknownOutcome, "unknownOutcome");

// src/creation.ts
var leaseMs = /* @__PURE__ */ __name((upstreamTimeoutMs) => Math.min(5 * 6e4, Math.max(3e4, 3 * upstreamTimeoutMs)), "leaseMs");
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
  const days = Math.round(replayMs / DAY_MS * 100) / 100;
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
async function createOnce(env, caller, requestId2, kind, input, after = () => void 0) {
  const config = readConfig(env);
  const isHold = kind.holdOf(input);
  if (isHold && !config.holdEnabled) throw new ApiError("hold_not_enabled", "The hold function is not enabled in this deployment.");
  const merchant2 = kind.merchantOf(input);
  const record2 = { isHold, qrMerchant: merchant2 !== void 0 && config.qrMerchantIds.has(merchant2) };
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
    return { binding: binding2, db: db2, claim: await claimTid(db2, { ...wanted, formerFingerprints, leaseMs: leaseMs(config.upstreamTimeoutMs) }) };
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
      if (result.outcome === "unknown") await expireTid(db, held);
      else await releaseTid(db, held);
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
      isHold: record2.isHold,
      qrMerchant: record2.qrMerchant,
      requestId: requestId2,
      completion: { binding, ...held, receiptId, answeredAt }
    });
  } catch (err) {
    log("error", "create_bookkeeping_failed", { request_id: requestId2, kind: kind.name, error: String(err) });
    await expireTid(db, held).catch(() => void 0);
    throw new ApiError("upstream_error", "The receipt was created but could not be recorded; retry with the same tid.");
  }
  after(
    completeTid(db, held, receiptId, answeredAt).then(
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
  const row = await findTid(await readIndexFor(env, owner, tid), owner, tid);
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
var contextOf = /* @__PURE__ */ __name((c) => ({ caller: c.var.caller, requestId: c.var.requestId }), "contextOf");
function onRecord(kind, run) {
  return (c, input) => sendFromRecord(c, () => run(receiptStub(c.env, kind, input.id), input, { ...contextOf(c), record: { kind, id: input.id } }));
}
__name(onRecord, "onRecord");
var IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;
function idempotencyKeyOf(c) {
  const key = c.req.header("idempotency-key");
  if (key === void 0) return void 0;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError("invalid_request", "The request does not match the schema.", {
      details: [{ path: "Idempotency-Key", message: "Idempotency-Key must be 1 to 255 printable ASCII characters" }]
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
    log("error", "record_object_failed", { request_id: c.var.requestId, error: err instanceof Error ? err.message : String(err) });
    throw new ApiError(
      "upstream_error",
      "The gateway lost track of this operation midway; its outcome is being reconciled. Read the receipt (check-id) before retrying."
    );
  }
  if (outcome.replayed) {
    const { status, body, headers } = outcome.replayed;
    return c.body(body, status, { ...headers, "content-type": "application/json", "Idempotent-Replayed": "true" });
  }
  return c.body(unwrap(outcome), 200, { "content-type": "application/json" });
}
__name(sendFromRecord, "sendFromRecord");
function created(kind, toCreate = (input) => input) {
  return async (c, input) => {
    idempotencyKeyOf(c);
    const after = /* @__PURE__ */ __name((work) => c.executionCtx.waitUntil(work), "after");
    const { body, replayed } = await createOnce(c.env, c.var.caller, c.var.requestId, kind, toCreate(input), after);
    if (replayed) c.header("Idempotent-Replayed", "true");
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
        op: pipe(string(), description("create, authorize, pay, hold-confirm, cancel, read, or reconcile (the gateway's own).")),
        actor: pipe(string(), description("partner, user:<sub>, or gateway (its own reconciliation).")),
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
var ListEventsRequest = pipe(
  object({
    receipt_id: optional(pipe(ReceiptId, description("Only this receipt's (or transfer's `receipt_id`) events."))),
    type: optional(EventTypeName),
    delivery: optional(DeliveryStatusName),
    after: optional(pipe(EventId, description("The last event id of the previous page: answers events older than it."))),
    limit: optional(
      pipe(
        number("limit must be a number"),
        integer("limit must be an integer"),
        minValue(1, "limit must be 1 to 100"),
        maxValue(100, "limit must be 1 to 100"),
        int32()
      ),
      20
    )
  }),
  examples([{ type: "receipt.paid", delivery: "failed", limit: 20 }]),
  title("ListEventsRequest")
);
var UserSub = pipe(
  string(),
  minLength(1, "user must not be empty"),
  ...MaxText(255, "user must be at most 255 characters"),
  description("The user's `sub`, as in their JWT.")
);
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
        object({
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
      request: pipe(object({ id: EventId }), examples([{ id: EXAMPLE_EVENT_ID }]), title("ResendEventRequest")),
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
      request: pipe(object({ user: UserSub }), examples([{ user: "user-123" }]), title("EraseUserRequest")),
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
  object({
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
var checkReceipt = onRecord("receipt", (record2, _input, op) => record2.check(op));
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
        object({ id: ReceiptId, card: TokenCard }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: { token: "tok_sandbox_ok" } }]),
        title("AuthorizeRequest")
      ),
      response: AuthorizeResult,
      errors: [...AUTHORIZE_ERRORS],
      limit: "authorize",
      lifecycle: "authorize",
      upstream: ["receipt/authorize"],
      handle: keyed("receipt", (record2, { card }, op) => record2.authorize({ ...op, card }))
    }),
    describe({
      path: "/receipt/anonymous/authorize",
      operationId: "authorizeReceiptAnonymous",
      example: { summary: "The OTP was sent", value: AUTHORIZED_ANONYMOUS },
      summary: "Send the OTP for a card-number payment",
      description: DOCS.authorizeReceiptAnonymous,
      request: pipe(
        object({ id: ReceiptId, card: NumberCard }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: EXAMPLE_CARD }]),
        title("AnonymousAuthorizeRequest")
      ),
      response: AuthorizeResult,
      errors: [...AUTHORIZE_ERRORS],
      limit: "authorize",
      lifecycle: "authorize",
      upstream: ["receipt/anonymous/authorize"],
      handle: keyed("receipt", (record2, { card }, op) => record2.authorize({ ...op, card }))
    }),
    describe({
      path: "/receipt/pay",
      operationId: "payReceipt",
      example: { summary: "Paid (state 4), fiscalized", value: RECEIPT_PAID },
      summary: "Pay a receipt with a card token",
      description: DOCS.payReceipt,
      request: pipe(
        object({ id: ReceiptId, card: TokenCard, otp: optional(Otp) }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: { token: "tok_sandbox_ok" }, otp: "111111" }]),
        title("PayRequest")
      ),
      response: Receipt,
      errors: [...PAY_ERRORS],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["receipt/pay"],
      handle: keyed("receipt", (record2, { card, otp }, op) => record2.pay({ ...op, card, otp }))
    }),
    describe({
      path: "/receipt/anonymous/pay",
      operationId: "payReceiptAnonymous",
      example: { summary: "Paid (state 4): the reduced receipt", value: REDUCED_RECEIPT_PAID },
      summary: "Pay a receipt with a card number",
      description: DOCS.payReceiptAnonymous,
      request: pipe(
        object({ id: ReceiptId, card: NumberCard, otp: Otp }),
        examples([{ id: EXAMPLE_RECEIPT_ID, card: EXAMPLE_CARD, otp: "111111" }]),
        title("AnonymousPayRequest")
      ),
      response: ReducedReceipt,
      errors: [...PAY_ERRORS, "risk_limited"],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["receipt/anonymous/pay"],
      handle: keyed("receipt", (record2, { card, otp }, op) => record2.pay({ ...op, card, otp }))
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
      handle: keyed("receipt", (record2, _input, op) => record2.holdConfirm(op))
    }),
    describe({
      path: "/receipt/cancel",
      operationId: "cancelReceipt",
      example: { summary: "The paid receipt cancelled (state 21), the refund fiscalized", value: RECEIPT_CANCELLED },
      summary: "Cancel a receipt",
      description: DOCS.cancelReceipt,
      request: pipe(
        object({ id: ReceiptId, reason: optional(Text(256)), cancelledBy: optional(Text(128)) }),
        examples([{ id: EXAMPLE_RECEIPT_ID, reason: "Customer changed their mind" }]),
        title("CancelRequest")
      ),
      response: Receipt,
      errors: ["forbidden", "receipt_not_found", "operation_in_progress", "cancel_not_allowed", "receipt_expired"],
      lifecycle: "cancel",
      upstream: ["receipt/cancel"],
      handle: keyed("receipt", (record2, { reason, cancelledBy }, op) => record2.cancel({ ...op, reason, cancelledBy }))
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
async function cardFingerprint(secret, card) {
  const message2 = "number" in card ? `number\0${card.number}` : `token\0${card.token}`;
  return hex(await hmac(secret, message2));
}
__name(cardFingerprint, "cardFingerprint");
var fingerprintPrefix = /* @__PURE__ */ __name((fingerprint2) => fingerprint2.slice(0, 12), "fingerprintPrefix");

// src/risk/check.ts
var REFUSALS = {
  card_uses_per_hour: "This card number was used too many times in the last hour",
  user_cards_per_day: "This user has used too many different card numbers today",
  user_otp_sends_per_day: "Too many OTPs were sent for this user today",
  card_otp_sends_per_day: "Too many OTPs were sent to this card today"
};
var riskStub = /* @__PURE__ */ __name((env, subject) => env.RISK.get(env.RISK.idFromName(subject)), "riskStub");
async function admitRisk(env, caller, uses, requestId2) {
  if (caller.kind === "partner") return null;
  const limits = riskLimits(env);
  const fingerprint2 = await cardFingerprint(env.CARD_FINGERPRINT_SECRET ?? "", uses.card);
  const isNumber = "number" in uses.card;
  const counter = /* @__PURE__ */ __name((rule, distinct2) => {
    const limit = limits[rule];
    return limit === null ? [] : [{ rule, limit, windowMs: RISK_RULES[rule].windowMs, ...distinct2 === void 0 ? {} : { distinct: distinct2 } }];
  }, "counter");
  const subjects = [
    {
      kind: "card",
      name: `card:${fingerprint2}`,
      counters: [...isNumber ? counter("card_uses_per_hour") : [], ...uses.otpSend ? counter("card_otp_sends_per_day") : []]
    },
    {
      kind: "user",
      name: `user:${caller.id}`,
      counters: [...isNumber ? counter("user_cards_per_day", fingerprint2) : [], ...uses.otpSend ? counter("user_otp_sends_per_day") : []]
    }
  ].filter((subject) => subject.counters.length > 0);
  if (subjects.length === 0) return null;
  const stubs = subjects.map((subject) => riskStub(env, subject.name));
  const admissions = await Promise.all(
    stubs.map(
      (stub, i) => stub.admit(subjects[i].counters).catch((err) => {
        log("error", "risk_unavailable", { request_id: requestId2, subject: subjects[i].kind, error: String(err) });
        return { ok: true, written: [] };
      })
    )
  );
  let refusal = null;
  admissions.forEach((admission, i) => {
    if (!admission.ok && (!refusal || admission.retryAfterMs > refusal.retryAfterMs)) refusal = { ...admission, subject: subjects[i].kind };
  });
  if (!refusal) return null;
  const refused = refusal;
  await Promise.all(
    admissions.map(
      (admission, i) => admission.ok && admission.written.length > 0 ? stubs[i].release(admission.written).catch((err) => {
        log("error", "risk_unavailable", { request_id: requestId2, subject: subjects[i].kind, error: String(err) });
      }) : void 0
    )
  );
  const retryAfter = Math.max(1, Math.ceil(refused.retryAfterMs / 1e3));
  log("warn", "risk_limited", {
    request_id: requestId2,
    rule: refused.rule,
    subject: refused.subject,
    fingerprint: fingerprintPrefix(fingerprint2),
    ...refused.subject === "user" ? { user: caller.id } : {},
    retry_after: retryAfter
  });
  return {
    code: "risk_limited",
    message: `${REFUSALS[refused.rule]} (rule 13, ${refused.rule}); retry after Retry-After seconds.`,
    rule: refused.rule,
    retry_after: retryAfter
  };
}
__name(admitRisk, "admitRisk");

// src/operations/transfers.ts
var CreateTransferRequest = pipe(
  object({
    tid: Tid,
    amount: Amount,
    rate_id: pipe(PositiveId("rate_id"), description("Tariff id at the payment service.")),
    receiver_card: CardNumber,
    token: pipe(CardToken, description("Sender's card token."))
  }),
  examples([{ tid: "transfer-2026-0001", amount: 15e5, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" }]),
  title("CreateTransferRequest")
);
var createTransfer = created(TRANSFER);
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
      handle: /* @__PURE__ */ __name(async (c, input) => {
        const risky = await admitRisk(c.env, c.var.caller, { card: { number: input.receiver_card } }, c.var.requestId);
        if (risky) throw ApiError.from(risky);
        return createTransfer(c, input);
      }, "handle")
    }),
    describe({
      path: "/a2c/pay",
      operationId: "payTransfer",
      example: { summary: "Paid (state 4)", value: TRANSFER_PAID },
      summary: "Confirm a transfer",
      description: DOCS.payTransfer,
      request: pipe(
        object({ id: ReceiptId, otp: optional(Otp) }),
        examples([{ id: EXAMPLE_TRANSFER_ID, otp: "111111" }]),
        title("PayTransferRequest")
      ),
      response: TransferReceipt,
      errors: [...PAY_ERRORS],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["a2c/pay"],
      handle: keyed("transfer", (record2, { otp }, op) => record2.payTransfer({ ...op, otp }))
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
      handle: onRecord("transfer", (record2, _input, op) => record2.check(op))
    })
  ]
};

// ../../../work/main/node_modules/jose/dist/webapi/lib/buffer_utils.js
var encoder = new TextEncoder();
var decoder = new TextDecoder();
var strictDecoder = new TextDecoder("utf-8", { fatal: true });
var UINT32_RANGE = 2 ** 32;
function concat(...buffers) {
  const size2 = buffers.reduce((acc, { length }) => acc + length, 0), buf = new Uint8Array(size2);
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
var invalid = "The input to be decoded is not correctly encoded.";
function decode(input) {
  try {
    return decodeBase642(typeof input == "string" ? input : decoder.decode(input), true);
  } catch (cause) {
    throw new TypeError(invalid, { cause });
  }
}
__name(decode, "decode");

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

// ../../../work/main/node_modules/jose/dist/webapi/jwt/verify.js
async function jwtVerify(jwt, key, options) {
  const [verified, b64] = await verifyCompact(jwt, prepareVerify(options), key);
  if (!b64)
    throw new JWTInvalid("JWTs MUST NOT use unencoded payload");
  const payload = validateClaimsSet(verified.protectedHeader, verified.payload, options);
  return { ...verified, payload };
}
__name(jwtVerify, "jwtVerify");

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

// src/auth.ts
var CLOCK_TOLERANCE_SECONDS = 30;
var MAX_CREDENTIAL_LENGTH = 8192;
var MAX_SUBJECT_LENGTH = 255;
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
var keySets = /* @__PURE__ */ new Map();
function keySet(url) {
  let set = keySets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 3e3, cooldownDuration: 3e4, cacheMaxAge: 6e5 });
    keySets.set(url, set);
  }
  return set;
}
__name(keySet, "keySet");
var TOKEN_FAULTS = {
  [errors_exports.JWTExpired.code]: "The token has expired.",
  [errors_exports.JOSEAlgNotAllowed.code]: "The token's signing algorithm is not accepted.",
  [errors_exports.JOSENotSupported.code]: "The token uses a feature that is not accepted.",
  [errors_exports.JWSInvalid.code]: "The token is not a well-formed JWT.",
  [errors_exports.JWTInvalid.code]: "The token is not a well-formed JWT.",
  [errors_exports.JWSSignatureVerificationFailed.code]: "The token's signature could not be verified.",
  [errors_exports.JWKSNoMatchingKey.code]: "The token's signature could not be verified.",
  [errors_exports.JWKSMultipleMatchingKeys.code]: "The token's signature could not be verified."
};
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
  return config.mode === "jwks" ? jwtVerify(token, keySet(config.jwksUrl), options) : jwtVerify(token, config.secret, options);
}
__name(verify, "verify");
function tokenFailure(config, err) {
  if (err instanceof errors_exports.JWTClaimValidationFailed) {
    return unauthorized(`The token's "${err.claim}" claim is missing or not accepted.`);
  }
  const code = err instanceof errors_exports.JOSEError ? err.code : "";
  const fault = TOKEN_FAULTS[code];
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
    let size2 = 0;
    let buffer = /* @__PURE__ */ new Uint8Array(0);
    const rawReader = c.req.raw.body.getReader();
    for (; ; ) {
      const { done, value } = await rawReader.read();
      if (done) break;
      const offset = size2;
      size2 += value.length;
      if (size2 > maxSize) return onError(c);
      if (size2 > buffer.length) {
        const grown = new Uint8Array(Math.min(maxSize, Math.max(size2, buffer.length * 2)));
        grown.set(buffer.subarray(0, offset));
        buffer = grown;
      }
      buffer.set(value, offset);
    }
    c.req.raw = new Request(c.req.raw, { body: buffer.subarray(0, size2) });
    return next();
  }, "bodyLimit");
}, "bodyLimit");

// src/http.ts
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
  const text = await c.req.text();
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new ApiError("invalid_json", `The request body is not valid JSON${whereJsonFails(err, text)}.`);
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
function whereJsonFails(err, text) {
  const message2 = err instanceof Error ? err.message : "";
  const position = /at position (\d+)/.exec(message2);
  if (position) {
    const before = text.slice(0, Number(position[1]));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    return ` at line ${line}, column ${column}`;
  }
  return text.trim() === "" ? ": it is empty" : /end of (JSON )?input|Unterminated/i.test(message2) ? ": it ends too early" : "";
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
  array: "an array",
  integer: "an integer"
};
var isDefaultMessage = /* @__PURE__ */ __name((issue) => issue.message === (issue.kind === "schema" ? `expected ${issue.expected ?? issue.type}` : `invalid ${issue.type}`), "isDefaultMessage");
function plainMessage(issue) {
  const path = issuePath(issue.path);
  const field = path || "the body";
  if (!isDefaultMessage(issue)) {
    return /^must\b/.test(issue.message) ? `${field} ${issue.message}` : issue.message;
  }
  if (issue.kind === "schema") {
    if (issue.input === void 0 && path) return `${field} is required`;
    if (!path && issue.type === "object") return notAnObject(issue.input);
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
function unwrapSchema(schema) {
  let current = schema;
  for (let i = 0; current?.wrapped && i < 8; i++) current = current.wrapped;
  return current;
}
__name(unwrapSchema, "unwrapSchema");
function suggestion(unknown2, known) {
  const folded = fold(unknown2);
  const same = known.find((name) => fold(name) === folded);
  if (same) return same;
  return ALIASES.get(folded)?.find((name) => known.includes(name.split(".")[0]));
}
__name(suggestion, "suggestion");
function nearMisses(schema, value, path = [], found = []) {
  const shape = unwrapSchema(schema);
  if (!shape || value === null || typeof value !== "object" || found.length >= MAX_DETAILS) return found;
  if (shape.type === "array" && shape.item && Array.isArray(value)) {
    for (const [index, item] of value.slice(0, 100).entries()) nearMisses(shape.item, item, [...path, String(index)], found);
    return found;
  }
  if (shape.type === "union" && shape.options) {
    return found;
  }
  if (!shape.entries || Array.isArray(value)) return found;
  const known = Object.keys(shape.entries);
  for (const [key, child] of Object.entries(value)) {
    if (found.length >= MAX_DETAILS) break;
    if (Object.hasOwn(shape.entries, key)) {
      nearMisses(shape.entries[key], child, [...path, key], found);
      continue;
    }
    const right = suggestion(key, known);
    if (right) {
      const at = [...path, key].join(".");
      const rightAt = [...path, right].join(".");
      found.push({ path: at, message: String(redact(`unknown field ${at}: did you mean ${rightAt}?`)) });
    }
  }
  return found;
}
__name(nearMisses, "nearMisses");
function refuse2(details, total) {
  const message2 = total > MAX_DETAILS ? `The request body does not match the schema: more than ${MAX_DETAILS} problems, the first ${MAX_DETAILS} are listed.` : "The request body does not match the schema.";
  throw new ApiError("invalid_request", message2, { details: details.slice(0, MAX_DETAILS) });
}
__name(refuse2, "refuse");
var jsonBody = /* @__PURE__ */ __name((schema) => validator2("json", schema, (result, _c) => {
  const misses = nearMisses(schema, result.data);
  if (result.success && misses.length === 0) return;
  const issues = result.success ? [] : result.error;
  const details = [
    ...misses,
    ...issues.slice(0, MAX_DETAILS).map((issue) => ({
      path: issuePath(issue.path),
      message: String(redact(plainMessage(issue)))
    }))
  ];
  refuse2(details, misses.length + issues.length);
}), "jsonBody");

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

// src/readiness.ts
var READINESS_TIMEOUT_MS = 2e3;
var READINESS_DATABASES = MAX_CONNECTIONS - 1;
async function probeUpstream(env, requestId2) {
  const result = await new UpstreamClient(env, requestId2, READINESS_TIMEOUT_MS).checkId("readyz-probe");
  if (result.ok || result.failure.code === "receipt_not_found") return { ok: true };
  if (result.upstreamCode === "UNAUTHORIZED" || result.failure.upstream_code === "UNAUTHORIZED") {
    return { ok: false, problem: "the upstream refused the gateway's credential (UPSTREAM_API_KEY)" };
  }
  return { ok: false, problem: `the upstream did not answer the probe (${result.failure.code})` };
}
__name(probeUpstream, "probeUpstream");
async function probeD1(binding, db) {
  let timer = null;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve("late"), READINESS_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([db.prepare("SELECT 1 AS one").first(), late]);
    if (answer === "late") return { ok: false, problem: `D1 (${binding}) did not answer within ${READINESS_TIMEOUT_MS} ms` };
    return answer?.one === 1 ? { ok: true } : { ok: false, problem: `D1 (${binding}) answered a query wrongly` };
  } catch {
    return { ok: false, problem: `D1 (${binding}) refused a query` };
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
  const problems = probes.flatMap((probe2) => probe2.ok ? [] : [probe2.problem]);
  if (problems.length > 0) {
    log("warn", "not_ready", { request_id: requestId2, problems });
    throw new ApiError("not_ready", `Not ready: ${problems.join("; ")}.`, { retry_after: 5 });
  }
  return { ok: true, upstream: "ok", db: "ok" };
}
__name(checkReadiness, "checkReadiness");

// src/app.ts
function createApp() {
  const app2 = new Hono3();
  app2.use(requestId());
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
  for (const api of APIS) app2.route(api.prefix, apiRouter(api));
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

// src/receipt-object.ts
import { DurableObject } from "cloudflare:workers";

// src/schedule.ts
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
  if (!isFinal(facts) || facts.pending || facts.suspect || facts.unsentEvents) return null;
  return facts.changedAt + retentionMs;
}
__name(recordDeletionAt, "recordDeletionAt");

// src/record/reconciler.ts
var upstreamCancelsOf = /* @__PURE__ */ __name((rec) => upstreamCancels({ kind: rec.kind, qrMerchant: rec.qr_merchant === 1, cancelRefused: rec.edge_closed === 1 }), "upstreamCancelsOf");
var guessCountsOf = /* @__PURE__ */ __name((rec) => ({ wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps }), "guessCountsOf");
var closedAtEdgeOf = /* @__PURE__ */ __name((rec) => closedAtEdge({ guesses: guessesOf(guessCountsOf(rec)), expired: rec.expiry !== null, upstreamCancels: upstreamCancelsOf(rec) }), "closedAtEdgeOf");
var callerKindOf = /* @__PURE__ */ __name((actor) => actor?.startsWith("partner:") ? "partner" : actor === "gateway" ? "gateway" : "user", "callerKindOf");
var Reconciler = class {
  static {
    __name(this, "Reconciler");
  }
  #parts;
  /** Reconciliation attempts that failed in a row (the alarm's backoff): this part's column. */
  #attempts;
  constructor(parts) {
    this.#parts = parts;
    this.#attempts = parts.store.slice("reconciler", ["reconcile_attempts"]);
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
  /** The refusal of a record whose guesses ran out, whole (the table's). */
  exhausted(caller) {
    const decision = this.decide("pay", caller, true, { phase: "exhausted" });
    if (decision.do === "refuse") return { code: decision.code, message: decision.message };
    const rec = this.#parts.store.current;
    return { code: "otp_attempts_exhausted", message: exhaustedMessage(rec.kind, guessCountsOf(rec), closedAtEdgeOf(rec)) };
  }
  /** Three failed guesses on a receipt the upstream cancels, still unpaid upstream: the gateway's own cancel is owed. */
  exhaustionCancelPending(rec = this.#parts.store.current) {
    return exhaustionCancelPending({ guesses: this.#parts.ledger.guesses(rec), state: rec.state, upstreamCancels: upstreamCancelsOf(rec) });
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
    const result = await kindNamed(rec.kind).read(upstream, rec.id);
    if (!result.ok) {
      this.#attempts.update({ reconcile_attempts: rec.reconcile_attempts + 1 });
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
    const lost = noted.pending_op === "cancel" ? { actor: noted.pending_actor, requestId: noted.pending_request_id } : null;
    store2.change(() => {
      if (noted.pending_op !== null) {
        const paid = isPaid(kindNamed(rec.kind).stateOf(result.value));
        if (noted.pending_otp === 1) ledger.count(paid ? "accepted" : "unconfirmed", requestId2);
        if (noted.pending_op === "authorize") ledger.countSend(void 0);
        if (STATE_CHANGING_CALLS.has(noted.pending_op)) lateReads.suspect(noted.pending_since, noted.pending_otp === 1 && !paid);
        writeAhead.clear();
      }
      recorder.apply(result.value, requestId2);
    });
    return { ok: true, value: lost };
  }
  /**
   * After a look and what it left owed: still waiting (57, a cancel not
   * through yet, or `owed`: an expiry's cancel the upstream was too busy for)
   * backs off further; settled starts afresh.
   */
  settled(attemptsBefore, owed = false) {
    const { store: store2 } = this.#parts;
    const attempts = owed || this.needsReconcile(store2.current) ? attemptsBefore + 1 : 0;
    this.#attempts.update({ reconcile_attempts: attempts });
  }
  /**
   * check-id's plain read of a record nothing is owed for: the upstream's
   * answer laid over the stored body, stored only when it says something new
   * (or completes a late read due), so the usual read waits for no commit.
   */
  async read(upstream, requestId2, busy2) {
    const { store: store2, recorder, lateReads } = this.#parts;
    const rec = store2.current;
    const version = store2.version;
    const result = await kindNamed(rec.kind).read(upstream, rec.id);
    if (!result.ok) return { ok: false, error: result.failure };
    const body = recorder.merged(result.value);
    if (version === store2.version && !busy2() && (body !== rec.body || lateReads.isDue(rec, clock.now()))) {
      store2.change(() => recorder.apply(result.value, requestId2, body));
    }
    return { ok: true, value: body };
  }
};

// src/record/specs.ts
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
var LOST_CANCEL = { reason: "a cancel whose answer was lost, completed by the gateway" };
var EXHAUSTION_CANCEL = { reason: `${GUESS_LIMIT_WORD.toLowerCase()} failed OTP guesses`, cancelledBy: "gateway" };
var EXPIRY_CANCEL = {
  expired: { reason: "expired unpaid", cancelledBy: "gateway" },
  hold_expired: { reason: "hold not confirmed in time", cancelledBy: "gateway" }
};
var Settlement = class {
  static {
    __name(this, "Settlement");
  }
  #parts;
  constructor(parts) {
    this.#parts = parts;
  }
  /** Note, then call: the write-ahead note, naming who asked, is durable before the call leaves (rule 8). */
  call(spec, upstream, input, note, otp) {
    const { store: store2, writeAhead } = this.#parts;
    return writeAhead.around(note, () => spec.call(upstream, store2.current, input, otp));
  }
  /**
   * Settle in one change: the note cleared, the OTP's verdict counted (the
   * third failed guess exhausts the record, with its event), the record and
   * the event its change is; `then` adds to that change what the settled
   * outcome decides (the operation's audit entry). An unknown outcome of a
   * state-changing call stores nothing: the note stays for the reconciler.
   */
  settle(spec, result, withOtp, requestId2, then) {
    const { store: store2 } = this.#parts;
    if (!result.ok && result.outcome === "unknown" && spec.settles === "state") return { ok: false, error: result.failure, verdict: null };
    const verdict = withOtp ? otpVerdictOf(result.ok ? result : { ...result, code: result.failure.code }) : null;
    return store2.change(() => {
      const settled = this.#settled(spec, result, verdict, requestId2);
      then?.(settled);
      return settled;
    });
  }
  #settled(spec, result, verdict, requestId2) {
    const { store: store2, writeAhead, ledger, recorder } = this.#parts;
    writeAhead.clear();
    if (spec.settles === "send" && (result.ok || result.outcome === "unknown")) {
      ledger.countSend(result.ok ? result.value.wait : void 0);
    }
    if (verdict) ledger.count(verdict, requestId2, !result.ok && result.failure.code === "otp_attempts_exhausted");
    if (!result.ok) {
      recorder.applyAfter(result, requestId2);
      return { ok: false, error: result.failure, verdict };
    }
    if (spec.settles === "send") return { ok: true, value: JSON.stringify(result.value) };
    recorder.apply(result.value, requestId2);
    return { ok: true, value: JSON.stringify({ ...result.value, tid: store2.current.tid }) };
  }
  /** The answer to a refused OTP: how many guesses are left, and why an unknown refusal counted. */
  explained(error, verdict) {
    const { ledger } = this.#parts;
    if (error.code === "otp_invalid") {
      const { upstream_code } = error;
      return { code: "otp_invalid", message: "The OTP is wrong.", attempts_left: ledger.attemptsLeft(), ...upstream_code ? { upstream_code } : {} };
    }
    if (verdict === "unconfirmed") {
      const said = error.message.replace(/ Nothing was done\.$/, "");
      return {
        ...error,
        message: `${said} Nothing was paid, but the OTP counts as a guess: the payment service may have judged it.`,
        attempts_left: ledger.attemptsLeft()
      };
    }
    return error;
  }
  /**
   * Finish: completing a cancel whose answer was lost is deciding that cancel
   * again, for the caller who asked, in the phase the upstream now shows: a
   * user's cancel of a receipt paid or held meanwhile is refused and audited
   * (the partner learns the state from its event); a partner's goes on, as
   * the refund it asked for. A busy or lost answer leaves the note: the
   * alarm completes it again. Otherwise the lost one could still land later.
   */
  async completeLostCancel(upstream, requestId2, lost) {
    const { store: store2, reconciler } = this.#parts;
    const rec = store2.current;
    const decision = reconciler.decide("cancel", callerKindOf(lost.actor), true);
    if (decision.do !== "call") {
      const outcome = decision.do === "refuse" ? decision.code : "operation_in_progress";
      store2.audit({ at: clock.now(), op: "cancel", actor: lost.actor ?? "user:unknown", request_id: lost.requestId ?? requestId2, outcome });
      log("warn", "lost_cancel_refused", { id: rec.id, kind: rec.kind, state: rec.state, code: outcome, request_id: lost.requestId });
      return;
    }
    const result = await this.call(CANCEL, upstream, LOST_CANCEL, { op: "cancel", actor: lost.actor, requestId: requestId2, withOtp: false }, void 0);
    if (!result.ok && (result.outcome === "unknown" || result.failure.code === "upstream_unavailable")) return;
    this.settle(CANCEL, result, false, requestId2);
  }
  /**
   * Finish: three failed guesses on a receipt the upstream cancels, still
   * unpaid there: the gateway's own cancel (caller `gateway`, a user's rights:
   * it never refunds). A busy answer is tried again by the alarm; a refusal
   * for good (no access) closes the record at the edge.
   */
  async exhaustionCancel(upstream, requestId2) {
    const { store: store2, reconciler, ledger } = this.#parts;
    const rec = store2.current;
    if (!reconciler.exhaustionCancelPending(rec) || rec.pending_op) return;
    const gateway = "gateway";
    if (reconciler.decide("cancel", gateway, true, { phase: upstreamPhase(rec.state) }).do !== "call") return;
    const note = { op: "exhaustion-cancel", actor: gateway, requestId: requestId2, withOtp: false };
    const result = await this.call(CANCEL, upstream, EXHAUSTION_CANCEL, note, void 0);
    if (!result.ok && result.outcome === "unknown") return;
    store2.change(() => {
      this.settle(CANCEL, result, false, requestId2);
      if (!result.ok && result.failure.code !== "upstream_unavailable" && store2.current.state !== STATE.cancelled) {
        ledger.cancelRefused();
        log("warn", "exhaustion_cancel_refused", { id: rec.id, upstream_code: result.failure.upstream_code, code: result.failure.code });
      }
    });
  }
  /**
   * Finish: rule 12's expiry, after the look (a late pay is stored as paid, a
   * cancel as cancelled, and nothing expires then). A record still in a state
   * that expires, past its window, is ended as the gateway: a transfer closed
   * at the edge; a receipt cancelled upstream as any cancel is (the cancel
   * table decides for caller `gateway`, then the write-ahead note, then the
   * call), or closed at the edge where the table or the upstream refuses it
   * for good. A busy upstream decides nothing (the alarm tries again); a lost
   * answer leaves the note for rule 8's reconciliation, never a second call.
   * Null when nothing was due; else what became of it, with the failure a
   * request meets when nothing was decided.
   */
  async expire(upstream, requestId2) {
    const { store: store2, reconciler, expiry } = this.#parts;
    const rec = store2.current;
    if (rec.pending_op || !expiry.isDue(rec, reconciler.phase(rec), clock.now())) return null;
    const rule = expiryRuleOf(rec.kind, rec.state);
    if (!rule) return null;
    const reason = rec.expiry ?? rule.reason;
    const gateway = "gateway";
    const decision = rule.ends === "cancel" ? reconciler.decide("cancel", gateway, true, { phase: upstreamPhase(rec.state), expiring: reason }) : null;
    if (decision?.do !== "call") {
      store2.change(() => expiry.closeAtEdge(reason, requestId2, false));
      return { outcome: "edge" };
    }
    store2.change(() => expiry.decide(reason));
    const note = { op: "expiry-cancel", actor: gateway, requestId: requestId2, withOtp: false };
    const result = await this.call(CANCEL, upstream, EXPIRY_CANCEL[reason], note, void 0);
    if (!result.ok && result.outcome === "unknown") return { outcome: "unknown", failure: result.failure };
    return store2.change(() => {
      if (!result.ok) expiry.undecide();
      this.settle(CANCEL, result, false, requestId2);
      const after = store2.current;
      const outcome = expiryOutcomeOf(result.ok ? result : { ...result, code: result.failure.code }, expiryRuleOf(after.kind, after.state) !== null);
      if (outcome === "edge") {
        expiry.closeAtEdge(reason, requestId2, true);
        log("warn", "expiry_cancel_refused", { id: rec.id, upstream_code: result.ok ? void 0 : result.failure.upstream_code });
      }
      return result.ok || outcome === "edge" ? { outcome } : { outcome, failure: result.failure };
    });
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
  /** The operation in flight in this incarnation, if any. In memory on purpose: see #oneAtATime. */
  #busy = null;
  /** Audits the operation in flight with its outcome, once (#oneAtATime). */
  #audit = null;
  constructor(parts, env) {
    this.#parts = parts;
    this.#env = env;
    this.#settlement = new Settlement(parts);
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
  /** A request's money move, step by step (this module's header). */
  async run(spec, op) {
    const { store: store2, reconciler, ledger, keys, expiry } = this.#parts;
    const actor = ownerOf(op.caller);
    return this.#oneAtATime(spec.operation, op, async (upstream) => {
      const seen = op.idempotency ? keys.look(actor, spec.operation, op.idempotency) : { kind: "new" };
      if (seen.kind === "replay") return { ok: true, value: seen.answer.body, replayed: seen.answer };
      if (seen.kind === "reused") {
        return fail("idempotency_key_reused", "This Idempotency-Key was used for another request on this record; use a new key for a new request.");
      }
      if (seen.kind === "unknown") return this.#repeatAfterUnknown(spec, op, upstream);
      const otp = spec.otp?.(store2.current, op);
      const expiring = expiry.isDue(store2.current, reconciler.phase(), clock.now());
      if (expiring) {
        const looked = await this.reconcile(upstream, op.requestId);
        if (!looked.ok) return looked;
      }
      let decision = reconciler.decide(spec.operation, op.caller.kind, expiring, { otpMissing: otp === false });
      if (decision.do === "ask-upstream-first") {
        const looked = await this.reconcile(upstream, op.requestId);
        if (!looked.ok) return looked;
        decision = reconciler.decide(spec.operation, op.caller.kind, true, { otpMissing: otp === false });
      }
      if (decision.do !== "call") return this.#kept(spec, op, refusalOf(decision));
      const limited = spec.settles === "send" ? ledger.sendRefusal(clock.now()) : null;
      if (limited) return { ok: false, error: limited };
      const uses = spec.risk?.(op);
      const risky = uses ? await admitRisk(this.#env, op.caller, uses, op.requestId) : null;
      if (risky) return { ok: false, error: risky };
      const sent = otp === false ? void 0 : otp;
      if (op.idempotency) keys.open(actor, spec.operation, op.idempotency, op.requestId);
      const note = { op: spec.operation, actor, requestId: op.requestId, withOtp: sent !== void 0 };
      const result = await this.#settlement.call(spec, upstream, op, note, sent);
      const audited = /* @__PURE__ */ __name((settled2) => {
        if (reconciler.phase() !== "exhausted" || sent === void 0) this.#audit?.(settled2.ok ? "ok" : settled2.error.code);
      }, "audited");
      if (!result.ok && result.outcome === "unknown") {
        this.#settlement.settle(spec, result, sent !== void 0, op.requestId, audited);
        return { ok: false, error: result.failure };
      }
      const settled = this.#settlement.settle(spec, result, sent !== void 0, op.requestId, audited);
      if (reconciler.phase() === "exhausted" && sent !== void 0) {
        await this.#settlement.exhaustionCancel(upstream, op.requestId);
        return this.#kept(spec, op, { ok: false, error: reconciler.exhausted(op.caller.kind) });
      }
      return this.#kept(spec, op, settled.ok ? settled : { ok: false, error: this.#settlement.explained(settled.error, settled.verdict) });
    });
  }
  /**
   * Rule 11: the answer a key's request got, kept when the gateway acted
   * (lifecycle's keepsAnswer), forgotten when it did not, so that a corrected
   * or later request may use the key again. In the outcome's commit.
   */
  #kept(spec, op, outcome) {
    const { keys } = this.#parts;
    if (!op.idempotency) return outcome;
    const actor = ownerOf(op.caller);
    const answer = outcome.ok ? { status: 200, body: outcome.value, headers: {} } : errorAnswer(outcome.error, op.requestId);
    if (keepsAnswer(answer.status, outcome.ok ? void 0 : outcome.error.code))
      keys.answer(actor, spec.operation, op.idempotency, op.requestId, answer);
    else keys.forget(actor, spec.operation, op.idempotency);
    return outcome;
  }
  /**
   * Rule 11: the first request with this key met an unknown outcome (a
   * timeout, a lost connection, a crash before its answer). The repeat asks
   * the upstream (settling the lost note, as the reconciler would) and
   * answers what it shows: the record, when the operation happened; else
   * that nothing happened and the key is spent. Never a second call.
   */
  async #repeatAfterUnknown(spec, op, upstream) {
    const { store: store2, keys } = this.#parts;
    const looked = await this.reconcile(upstream, op.requestId);
    if (!looked.ok) return looked;
    const rec = store2.current;
    const shown = repeatAnswer(spec.operation, upstreamPhase(rec.state));
    const outcome = shown === "done" ? { ok: true, value: rec.body } : shown === "unknown_send" ? fail(
      "upstream_error",
      "The OTP send with this Idempotency-Key met an unknown outcome: an SMS may have been sent. Use it, or authorize again with a new key once its wait has passed."
    ) : fail(
      "upstream_error",
      `The ${spec.operation} with this Idempotency-Key did not happen: the payment service shows nothing done. Send it again with a new key.`
    );
    const answer = outcome.ok ? { status: 200, body: outcome.value, headers: {} } : errorAnswer(outcome.error, op.requestId);
    keys.answer(ownerOf(op.caller), spec.operation, op.idempotency, op.requestId, answer);
    return { ...outcome, replayed: answer };
  }
  /**
   * Asks the upstream how the record stands (the reconciler's look), then
   * carries out what the look left owed, each decided for whom it acts:
   * the cancel whose answer was lost, rule 2's exhaustion cancel, then rule
   * 12's expiry (audited as the gateway's). An expiry the upstream was too
   * busy for fails the look: nothing was decided.
   */
  async reconcile(upstream, requestId2) {
    const { store: store2, reconciler } = this.#parts;
    const attempts = store2.current.reconcile_attempts;
    const looked = await reconciler.look(upstream, requestId2);
    if (!looked.ok) return looked;
    if (looked.value && store2.current.state !== STATE.cancelled) await this.#settlement.completeLostCancel(upstream, requestId2, looked.value);
    await this.#settlement.exhaustionCancel(upstream, requestId2);
    const expired = await this.#settlement.expire(upstream, requestId2);
    if (expired) store2.audit({ at: clock.now(), op: "expire", actor: "gateway", request_id: requestId2, outcome: expired.outcome });
    reconciler.settled(attempts, expired?.outcome === "retry");
    return expired?.outcome === "retry" && expired.failure ? { ok: false, error: expired.failure } : { ok: true, value: void 0 };
  }
  /** The receipt or transfer as the upstream says it stands now (check-id, get-by-id). */
  async check(op) {
    const loaded = await this.#load(op, true);
    if (!loaded.ok) return loaded;
    const rec = loaded.value;
    if (this.#busy) return { ok: true, value: rec.body };
    if (this.#parts.reconciler.needsReconcile(rec) || this.expiryDue()) {
      return this.#oneAtATime("read", op, async (upstream) => {
        const looked = await this.reconcile(upstream, op.requestId);
        return looked.ok ? { ok: true, value: this.#parts.store.current.body } : looked;
      });
    }
    const read = await this.#parts.reconciler.read(new UpstreamClient(this.#env, op.requestId), op.requestId, () => this.busy);
    return read;
  }
  /** The alarm's look, with no caller: what only the upstream can settle, or a late read due. Audited when it changed something or failed. */
  async reconcileAlone() {
    const { store: store2 } = this.#parts;
    const rec = store2.current;
    this.#busy = "reconcile";
    const requestId2 = `alarm-${crypto.randomUUID()}`;
    try {
      const looked = await this.reconcile(new UpstreamClient(this.#env, requestId2), requestId2);
      const after = store2.current;
      if (!looked.ok || after.state !== rec.state || after.pending_op !== rec.pending_op || after.suspect_since !== rec.suspect_since) {
        store2.audit({ at: clock.now(), op: "reconcile", actor: "gateway", request_id: requestId2, outcome: looked.ok ? "ok" : looked.error.code });
      }
    } finally {
      this.#busy = null;
    }
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
   * mid-flight is the write-ahead note in storage. Every outcome is audited.
   */
  async #oneAtATime(operation2, op, step) {
    const loaded = operation2 === "read" ? { ok: true } : await this.#load(op, operation2 === "cancel" || operation2 === "hold-confirm");
    if (!loaded.ok) return loaded;
    const { store: store2 } = this.#parts;
    const actor = ownerOf(op.caller);
    const audit = /* @__PURE__ */ __name((outcome) => store2.audit({ at: clock.now(), op: operation2, actor, request_id: op.requestId, outcome }), "audit");
    if (this.#busy) {
      audit("operation_in_progress");
      return fail("operation_in_progress", `Another operation is in flight for this ${store2.current.kind}.`, { retry_after: 1 });
    }
    this.#busy = operation2;
    let audited = false;
    this.#audit = (outcome) => {
      if (audited) return;
      audited = true;
      audit(outcome);
    };
    try {
      const outcome = await step(new UpstreamClient(this.#env, op.requestId));
      this.#audit(outcome.ok ? "ok" : outcome.error.rule ? `${outcome.error.code}:${outcome.error.rule}` : outcome.error.code);
      return outcome;
    } catch (err) {
      log("error", "receipt_operation_failed", { request_id: op.requestId, op: operation2, error: err instanceof Error ? err.message : String(err) });
      audit("internal_error");
      return fail("internal_error", "The gateway failed to handle this operation.");
    } finally {
      this.#busy = null;
      this.#audit = null;
    }
  }
};

// src/record/alarm.ts
var Alarm = class {
  static {
    __name(this, "Alarm");
  }
  #storage;
  /** The alarm this incarnation set (null: none; undefined: not known since it started). */
  #at = void 0;
  constructor(storage) {
    this.#storage = storage;
  }
  /** The alarm has fired, or storage was deleted with it: none is set until the next set(). */
  fired() {
    this.#at = null;
  }
  /** An alarm is known to be set between now and `latest`. */
  setWithin(now, latest) {
    return typeof this.#at === "number" && this.#at >= now && this.#at <= latest;
  }
  set(at) {
    if (at === this.#at) return;
    if (at === null) {
      if (this.#at === void 0) return;
      this.#storage.deleteAlarm();
    } else {
      this.#storage.setAlarm(at);
    }
    this.#at = at;
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
  #failedAt = 0;
  constructor(store2, env) {
    this.#store = store2;
    this.#slice = store2.slice("completion", ["owed_completion"]);
    this.#env = env;
  }
  /** A takeover's init (the same record, adopted) owes its own claim's completion. */
  owe(owed) {
    const text = _Completion.serialize(owed);
    if (this.#store.current?.owed_completion !== text) this.#slice.update({ owed_completion: text });
  }
  static serialize(owed) {
    return JSON.stringify(owed);
  }
  owed(rec) {
    return rec.owed_completion ? JSON.parse(rec.owed_completion) : null;
  }
  /** When the alarm should complete what is owed; null when nothing is. */
  dueAt(rec) {
    const owed = this.owed(rec);
    if (!owed) return null;
    return this.#failedAt ? this.#failedAt + RETRY_MS : owed.answeredAt + COMPLETION_CHECK_MS;
  }
  /** Completes the owed row (if the request has not) and forgets it. Never throws: a failure waits for the next alarm. */
  async settle(rec, now) {
    const owed = this.owed(rec);
    if (!owed) return;
    try {
      const db = this.#env[owed.binding];
      if (!db) throw new Error(`no D1 binding ${owed.binding}`);
      const done = await completeTid(db, owed, owed.receiptId, owed.answeredAt);
      if (done) log("info", "tid_completed_by_record", { id: owed.receiptId, binding: owed.binding });
      this.#failedAt = 0;
      if (this.#store.current?.owed_completion === rec.owed_completion) this.#slice.later({ owed_completion: null });
    } catch (err) {
      this.#failedAt = now;
      log("error", "tid_completion_failed", { id: owed.receiptId, binding: owed.binding, error: err instanceof Error ? err.message : String(err) });
    }
  }
};

// src/record/event-texts.ts
var GRAM = 16;
var MIN_RUN = 24;
var MAX_PLACES = 8;
function decodeBody(parts, texts) {
  let body = "";
  for (const part of parts) {
    if (typeof part === "string") body += part;
    else if (typeof part === "number") body += textOf(texts, part);
    else body += textOf(texts, part[0]).slice(part[1], part[2]);
  }
  return body;
}
__name(decodeBody, "decodeBody");
function textOf(texts, n) {
  const text = texts[n];
  if (typeof text !== "string") throw new Error(`an event refers to the row's text ${n}, which it does not hold`);
  return text;
}
__name(textOf, "textOf");
function bodyEncoder(texts) {
  const places = /* @__PURE__ */ new Map();
  for (const [n, text] of texts.entries()) {
    if (text === null) continue;
    for (let at = 0; at + GRAM <= text.length; at++) {
      const gram = text.slice(at, at + GRAM);
      const list = places.get(gram);
      if (!list) places.set(gram, [[n, at]]);
      else if (list.length < MAX_PLACES) list.push([n, at]);
    }
  }
  return (body) => {
    const parts = [];
    let literal2 = 0;
    let i = 0;
    while (i + GRAM <= body.length) {
      let best = null;
      for (const [n2, at2] of places.get(body.slice(i, i + GRAM)) ?? []) {
        const length2 = agreeing(body, i, texts[n2], at2);
        if (!best || length2 > best[2]) best = [n2, at2, length2];
      }
      if (!best || best[2] < MIN_RUN) {
        i++;
        continue;
      }
      const [n, at, length] = best;
      if (i > literal2) parts.push(body.slice(literal2, i));
      parts.push(at === 0 && length === texts[n].length ? n : [n, at, at + length]);
      i += length;
      literal2 = i;
    }
    if (literal2 < body.length) parts.push(body.slice(literal2));
    return parts.length > 1 && decodeBody(parts, texts) === body ? parts : [body];
  };
}
__name(bodyEncoder, "bodyEncoder");
function agreeing(body, i, text, j) {
  let n = 0;
  while (i + n < body.length && j + n < text.length && body[i + n] === text[j + n]) n++;
  return n;
}
__name(agreeing, "agreeing");

// src/record/outbox-rows.ts
var textsOf = /* @__PURE__ */ __name((row) => [row.answer, row.body], "textsOf");
function storedEvents(row) {
  const texts = textsOf(row);
  return JSON.parse(row.events).map(([id, ...parts]) => [id, decodeBody(parts, texts)]);
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
    const encode2 = bodyEncoder(textsOf(row));
    return JSON.stringify((this.#events ?? []).map(([id, body]) => [id, ...encode2(body)]));
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
    events: "[]",
    events_logged: 0
  };
}
__name(newRecordRow, "newRecordRow");

// src/record/schema.ts
var CURRENT_SCHEMA_VERSION = 4;
var NO_SEQ = "9223372036854775807";
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
  ]
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
    audit TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    schema_version INTEGER NOT NULL DEFAULT ${CURRENT_SCHEMA_VERSION},
    events TEXT NOT NULL DEFAULT '[]', events_logged INTEGER NOT NULL DEFAULT 0);`;
var KEYS_TABLE = `
  CREATE TABLE IF NOT EXISTS idempotency (
    caller TEXT NOT NULL, operation TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, request_id TEXT NOT NULL,
    status INTEGER, answer TEXT, headers TEXT, created_at INTEGER NOT NULL,
    PRIMARY KEY (caller, operation, key)) WITHOUT ROWID;`;
function storedVersion(sql) {
  const column = sql.exec("PRAGMA table_info(record)").toArray().find((c) => c.name === "schema_version");
  if (!column) return 0;
  const row = sql.exec("SELECT schema_version FROM record").toArray()[0];
  return row?.schema_version ?? Number(column.dflt_value);
}
__name(storedVersion, "storedVersion");
function migrate(storage, create, from = storedVersion(storage.sql), migrations = MIGRATIONS, target = CURRENT_SCHEMA_VERSION) {
  const sql = storage.sql;
  if (from === target || from === 0 && !create) return from;
  if (from > target) throw new Error(`storage is at schema ${from}, newer than this gateway's ${target}`);
  if (from === 0) {
    sql.exec(SCHEMA_CURRENT);
    return target;
  }
  storage.transactionSync(() => {
    for (let version = from + 1; version <= target; version++) {
      const statements = migrations[version];
      if (!statements) throw new Error(`no migration to schema ${version}`);
      for (const statement of statements) sql.exec(statement);
    }
    sql.exec("UPDATE record SET schema_version = ?", target);
  });
  return target;
}
__name(migrate, "migrate");

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
  /** Which part owns which column (slice). */
  #owners = /* @__PURE__ */ new Map();
  /** The last body parsed by parsedBody(), with its text. */
  #parsed = null;
  constructor(storage) {
    this.#storage = storage;
    this.outbox = new OutboxRows({ write: /* @__PURE__ */ __name(() => this.#eventsChanged(), "write"), defer: /* @__PURE__ */ __name((fields) => this.#defer(fields), "defer") });
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
    let found = this.#readRow();
    if (!this.#ready && found && found.schema_version !== CURRENT_SCHEMA_VERSION) {
      migrate(this.#storage, false, found.schema_version);
      found = this.#readRow();
    }
    if (found === void 0) return null;
    this.#ready = true;
    const { schema_version: _version, ...row } = found;
    this.outbox.know(row);
    this.#row = row;
    return this.#row;
  }
  /** The row with its schema version (and, in it, the outbox), in one statement; undefined when no record is stored. */
  #readRow() {
    try {
      return this.#storage.sql.exec("SELECT * FROM record").toArray()[0];
    } catch (err) {
      if (String(err).includes("no such table")) return void 0;
      throw err;
    }
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
    this.outbox.forget();
    this.#version++;
  }
  /** Creates the record (schema, row, audit entry and first event in one step). Idempotent. */
  create(row, then) {
    if (this.#row) return;
    const from = this.#ready ? CURRENT_SCHEMA_VERSION : this.#makeSchema();
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
        const columns = Object.keys(final);
        this.#storage.sql.exec(
          `INSERT INTO record (singleton, ${columns.join(", ")}) VALUES (1, ${columns.map(() => "?").join(", ")})`,
          ...Object.values(final)
        );
      });
    } catch (err) {
      this.#row = null;
      this.outbox.forget();
      throw err;
    }
  }
  /**
   * The schema for a record about to be created; the version it was at (0:
   * none). A new object (every create's) has no tables, so the current
   * schema is made straight away; only if that fails (the tables are there:
   * a create repeated after its object restarted) are they looked at and
   * migrated.
   */
  #makeSchema() {
    try {
      migrate(this.#storage, true, 0);
      return 0;
    } catch {
      const from = storedVersion(this.#storage.sql);
      migrate(this.#storage, true, from);
      return from;
    }
  }
  /** The row's body parsed (do not change it): parsed once per body read or written, not on every use. */
  parsedBody() {
    const text = this.#row.body;
    if (this.#parsed?.text !== text) this.#parsed = { text, value: JSON.parse(text) };
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
   * The writer of one part's columns (its slice of the row): every part owns
   * its columns alone, and a column claimed by two parts is a wiring error,
   * refused when the parts are made. Writes go through the change in hand.
   */
  slice(part, columns) {
    for (const column of columns) {
      const owner = this.#owners.get(column);
      if (owner !== void 0 && owner !== part) throw new Error(`record column ${column} belongs to ${owner}, not ${part}`);
      this.#owners.set(column, part);
    }
    const mine = new Set(columns);
    return {
      update: /* @__PURE__ */ __name((fields) => {
        for (const key of Object.keys(fields)) if (!mine.has(key)) throw new Error(`${part} may not write ${key}`);
        this.#update(fields);
      }, "update"),
      later: /* @__PURE__ */ __name((fields) => {
        for (const key of Object.keys(fields)) if (!mine.has(key)) throw new Error(`${part} may not write ${key}`);
        this.#row = { ...this.#row, ...fields };
        Object.assign(this.#batch ?? this.#lazy, fields);
      }, "later")
    };
  }
  /** Which part owns each column (for the test that every mutable column has exactly one). */
  get owners() {
    return this.#owners;
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
  /** Columns written with the row's next write (inside a change: with its UPDATE); the copy holds them now. */
  #defer(fields) {
    this.#row = { ...this.#row, ...fields };
    Object.assign(this.#batch ?? this.#deferred, fields);
  }
  /**
   * One UPDATE of these fields, with whatever waited for the row's next
   * write. The events' bodies are stored as parts of the row's body and
   * answer (src/record/event-texts.ts), so they are encoded again against
   * the row as written whenever either changes, or they do.
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
    const entries = Object.entries(pending);
    if (entries.length === 0) return;
    this.#storage.sql.exec(
      `UPDATE record SET ${entries.map(([key]) => `${key} = ?`).join(", ")}, updated_at = ?`,
      ...entries.map(([, value]) => value),
      this.#row.updated_at
    );
    this.#deferred = {};
    this.#lazy = {};
  }
  /**
   * Appends to the audit trail, kept in the record's row (one page for the
   * whole record: docs/capacity.md). Not a change of the record: it moves
   * neither updated_at nor the version.
   */
  audit(entry) {
    if (!this.#row) return;
    const entries = JSON.parse(this.#row.audit);
    entries.push([entry.at, entry.op, entry.actor, entry.request_id, entry.outcome, this.#row.state]);
    const audit = JSON.stringify(entries.slice(-MAX_AUDIT_ENTRIES));
    this.#row = { ...this.#row, audit };
    if (this.#batch) this.#batch.audit = audit;
    else this.#flush({ audit });
  }
  auditTrail() {
    if (!this.#row) return [];
    return JSON.parse(this.#row.audit).map(([at, op, actor, request_id, outcome, state]) => ({
      at,
      op,
      actor,
      request_id,
      outcome,
      state
    }));
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
  /**
   * Not before this (ms): the log still held events of the record when it last
   * asked. In memory: a new incarnation asks once more, one D1 read.
   */
  #notBefore = 0;
  constructor(store2, alarm, env, retentionMs) {
    this.#store = store2;
    this.#alarm = alarm;
    this.#env = env;
    this.#retentionMs = retentionMs;
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
    this.#store.create({ ...row, event_seq: now }, () => {
      this.#store.audit({ at: now, op: "rebuild", actor: ownerOf(caller), request_id: requestId2, outcome: "ok" });
    });
    log("info", "record_rebuilt", { request_id: requestId2, id: target.id, kind: target.kind, state });
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
        heldAt: rec.held_at || rec.created_at
      },
      this.#windows
    );
  }
  /** The gateway decided to end the record for this reason; its cancel is about to leave. Inside a change. */
  decide(reason) {
    this.#slice.update({ expiry: reason });
  }
  /** Nothing was decided after all (the upstream was busy, or refused because it changed meanwhile). Inside a change. */
  undecide() {
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
var Keys = class {
  static {
    __name(this, "Keys");
  }
  #storage;
  constructor(storage) {
    this.#storage = storage;
  }
  /**
   * Made by the first key the record meets (src/record/schema.ts KEYS_TABLE):
   * a record nobody repeats has no such page. Asked by look(), which every
   * keyed request makes before it opens, answers or forgets its key (no write
   * once the table exists), so a record deleted and rebuilt in one
   * incarnation gets it again.
   */
  #table() {
    this.#storage.sql.exec(KEYS_TABLE);
  }
  look(caller, operation2, request) {
    this.#table();
    const row = this.#storage.sql.exec(
      "SELECT fingerprint, request_id, status, answer, headers FROM idempotency WHERE caller = ? AND operation = ? AND key = ?",
      caller,
      operation2,
      request.key
    ).toArray()[0];
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
    this.#storage.sql.exec(
      "INSERT INTO idempotency (caller, operation, key, fingerprint, request_id, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      caller,
      operation2,
      request.key,
      request.fingerprints[0],
      requestId2,
      clock.now()
    );
  }
  /** The answer the key's request got, kept (in the outcome's commit). */
  answer(caller, operation2, request, requestId2, answer) {
    this.#storage.sql.exec(
      `INSERT INTO idempotency (caller, operation, key, fingerprint, request_id, status, answer, headers, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (caller, operation, key) DO UPDATE SET status = excluded.status, answer = excluded.answer, headers = excluded.headers`,
      caller,
      operation2,
      request.key,
      request.fingerprints[0],
      requestId2,
      answer.status,
      answer.body,
      Object.keys(answer.headers).length ? JSON.stringify(answer.headers) : null,
      clock.now()
    );
  }
  /** The request did nothing the key should remember (the upstream was busy and did nothing): a retry with it goes through. */
  forget(caller, operation2, request) {
    this.#storage.sql.exec("DELETE FROM idempotency WHERE caller = ? AND operation = ? AND key = ?", caller, operation2, request.key);
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
  constructor(store2, outbox) {
    this.#store = store2;
    this.#slice = store2.slice("otp-ledger", LEDGER_COLUMNS);
    this.#outbox = outbox;
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
      log("warn", "otp_attempts_exhausted", { id: rec.id, kind: rec.kind, wrong: counts.wrong, unconfirmed: counts.unconfirmed });
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
    const refusal = otpSendRefusal({ sends: rec.otp_sends, lastSentAt: rec.last_otp_sent_at, waitMs: rec.resend_wait_ms }, now);
    return refusal ? fail(refusal.code, refusal.message, { retry_after: refusal.retryAfterSeconds }).error : null;
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
  /** The refusal of a record whose guesses ran out: says whether they were wrong or partly unconfirmed. */
  exhausted(closedAtEdge2) {
    const rec = this.#store.current;
    return { code: "otp_attempts_exhausted", message: exhaustedMessage(rec.kind, this.counts(rec), closedAtEdge2) };
  }
};

// src/record/event.ts
function eventPayload(fields) {
  const id = newEventId(fields.at);
  const head = { id, type: fields.type, created: fields.at, sequence: fields.sequence, request_id: fields.requestId };
  const cause = fields.cause ? `,${JSON.stringify(fields.cause).slice(1, -1)}` : "";
  const data = `{"object":${fields.objectJson},"owner":${JSON.stringify(eventOwner(fields.owner))},"previous_state":${JSON.stringify(fields.previousState)}${cause}}`;
  return { id, payload: `${JSON.stringify(head).slice(0, -1)},"data":${data}}` };
}
__name(eventPayload, "eventPayload");

// src/record/outbox.ts
var DRAIN_BATCH = 50;
var DRAIN_FALLBACK_MS = 1e4;
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
   * a deadline: one set up to twice as far saves a write).
   */
  dueAt(now) {
    if (!this.#store.outbox.hasUnsent()) return null;
    const wait = this.#failures === 0 ? DRAIN_FALLBACK_MS : backoffMs(this.#failures);
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
  constructor(store2, outbox, ledger, lateReads) {
    this.#store = store2;
    this.#slice = store2.slice("recorder", RECORDER_COLUMNS);
    this.#outbox = outbox;
    this.#ledger = ledger;
    this.#lateReads = lateReads;
  }
  /**
   * Stores a body the upstream answered: the new state and, if the state
   * changed, its event. A reduced (anonymous) answer is merged into the
   * stored body.
   */
  apply(body, requestId2, merged = this.merged(body)) {
    const rec = this.#store.current;
    const previous = rec.state;
    const state = body.state;
    const heldAt = state === STATE.held && previous !== STATE.held ? clock.now() : void 0;
    this.#slice.update({ state, body: merged, held_at: heldAt });
    if (this.#lateReads.looked(state)) this.#ledger.provenRight();
    const type = eventForStateChange(rec.kind, previous, state);
    if (type) this.#outbox.emit(type, previous, requestId2, clock.now(), expiryCause(rec, state));
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
  /** Erases the owner's personal data from the body and the create's answer, and from every body stored from now on. Inside a change. */
  erase() {
    const rec = this.#store.current;
    this.#slice.update({ erased: 1, body: erasePersonalJson(rec.body), answer: rec.answer === null ? null : erasePersonalJson(rec.answer) });
  }
};

// src/record/write-ahead.ts
var WRITE_AHEAD_COLUMNS = ["pending_op", "pending_otp", "pending_since", "pending_request_id", "pending_actor"];
var WriteAhead = class {
  static {
    __name(this, "WriteAhead");
  }
  #note;
  #storage;
  #alarm;
  #upstreamTimeoutMs;
  /** When this incarnation's last note was written: a note of its own whose call has returned is no call in flight. */
  #notedAt = null;
  constructor(store2, storage, alarm, upstreamTimeoutMs) {
    this.#note = store2.slice("write-ahead", WRITE_AHEAD_COLUMNS);
    this.#storage = storage;
    this.#alarm = alarm;
    this.#upstreamTimeoutMs = upstreamTimeoutMs;
  }
  /**
   * Notes the call durably, then sends it. The note is written and flushed
   * before the request leaves (sync(); the output gate would hold the
   * request anyway), so a crash mid-call is reconciled with no caller. It
   * names who asked (`actor`, as the audit trail does): a lost call that the
   * gateway completes is decided again for that caller.
   */
  async around(note, call) {
    const now = clock.now();
    this.#notedAt = now;
    this.#note.update({
      pending_op: note.op,
      pending_otp: note.withOtp ? 1 : 0,
      pending_since: now,
      pending_request_id: note.requestId,
      pending_actor: note.actor
    });
    const deadline = now + this.#upstreamTimeoutMs + 1e3;
    if (!this.#alarm.setWithin(now, deadline)) this.#alarm.set(deadline);
    await this.#storage.sync();
    return call();
  }
  /**
   * A noted call may still be running upstream: an earlier incarnation noted
   * it (and stopped) and it could not have ended on its own by now. The alarm
   * looks at the upstream only after that (an alarm due earlier, set for
   * something else, is left in place by `around`).
   */
  mayStillRun(rec, now) {
    return rec.pending_op !== null && rec.pending_since !== this.#notedAt && now < rec.pending_since + this.#upstreamTimeoutMs + 1e3;
  }
  /** The call's outcome is being stored. Inside that change. */
  clear() {
    this.#note.update({ pending_op: null, pending_otp: 0, pending_since: 0, pending_request_id: null, pending_actor: null });
  }
};

// src/record/parts.ts
function recordParts(storage, env) {
  const { environment, upstreamTimeoutMs, holdEnabled, expiry: windows } = readConfig(env);
  const store2 = new RecordStore(storage);
  const alarm = new Alarm(storage);
  const outbox = new Outbox(store2, env);
  const ledger = new OtpLedger(store2, outbox);
  const lateReads = new LateReads(store2, lateReadSchedule(environment));
  const recorder = new Recorder(store2, outbox, ledger, lateReads);
  const writeAhead = new WriteAhead(store2, storage, alarm, upstreamTimeoutMs);
  const reconciler = new Reconciler({ store: store2, ledger, recorder, writeAhead, lateReads, upstreamTimeoutMs, holdEnabled });
  const end = new RecordEnd(store2, alarm, env, retentionPolicy(env).recordRetentionMs);
  const completion = new Completion(store2, env);
  const keys = new Keys(storage);
  const expiry = new Expiry(store2, outbox, ledger, windows);
  return { store: store2, alarm, outbox, ledger, lateReads, recorder, writeAhead, reconciler, end, completion, keys, expiry };
}
__name(recordParts, "recordParts");

// src/record/wake.ts
var Wake = class {
  static {
    __name(this, "Wake");
  }
  #parts;
  #moves;
  constructor(parts, moves) {
    this.#parts = parts;
    this.#moves = moves;
  }
  /** The alarm fired. */
  async fired() {
    const { store: store2, alarm, completion, end, reconciler, lateReads, outbox, writeAhead } = this.#parts;
    alarm.fired();
    let rec = store2.load();
    if (!rec) return;
    if (rec.owed_completion !== null) {
      await completion.settle(rec, clock.now());
      rec = store2.current ?? rec;
    }
    if (!this.#moves.busy && await end.deleteIfDue(rec, clock.now(), () => !this.#moves.busy)) return;
    try {
      const look = reconciler.needsReconcile(rec) || lateReads.isDue(rec) || this.#moves.expiryDue();
      if (!this.#moves.busy && look && !writeAhead.mayStillRun(rec, clock.now())) await this.#moves.reconcileAlone();
      await outbox.drain();
    } catch (err) {
      log("error", "receipt_alarm_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    } finally {
      store2.writeDeferred();
      this.arm(false);
    }
  }
  /**
   * After every operation and alarm: events still owed are drained at once,
   * in the background (nobody's answer waits for them), and whatever is owed
   * has an alarm, so an eviction or a crash before the drain loses nothing.
   * An alarm already due early enough is left alone. A drain's mark waits
   * for the row's next write only while an alarm due soon would write it.
   */
  arm(drainNow = true) {
    const { store: store2, alarm, completion, end, reconciler, outbox, expiry } = this.#parts;
    const rec = store2.current;
    if (!rec) return;
    const now = clock.now();
    const reconcileAt = earliest(reconciler.nextAt(rec, now), expiry.dueAt(rec, reconciler.phase(rec), now));
    const drain2 = outbox.dueAt(now);
    const completeAt = completion.dueAt(rec);
    const deleteAt = completeAt === null ? end.deleteAt(rec) : null;
    const due = Math.min(reconcileAt ?? Infinity, drain2?.at ?? Infinity, deleteAt ?? Infinity, completeAt ?? Infinity);
    const latest = Math.min(reconcileAt ?? Infinity, drain2?.latest ?? Infinity, completeAt ?? Infinity);
    if (due === Infinity) alarm.set(null);
    else if (!alarm.setWithin(now, latest)) alarm.set(due);
    if (store2.owesWrite && !alarm.setWithin(now, now + MARK_WAIT_MS)) store2.writeDeferred();
    if (drainNow && outbox.ready) void outbox.drain().then(() => this.arm(false));
  }
};
var earliest = /* @__PURE__ */ __name((a, b) => a === null ? b : b === null ? a : Math.min(a, b), "earliest");

// src/receipt-object.ts
var ReceiptObject = class extends DurableObject {
  static {
    __name(this, "ReceiptObject");
  }
  #parts;
  #moves;
  #wake;
  constructor(ctx, env) {
    super(ctx, env);
    this.#parts = recordParts(ctx.storage, env);
    this.#moves = new Moves(this.#parts, env);
    this.#wake = new Wake(this.#parts, this.#moves);
  }
  // --- money moves (src/record/move.ts) ---------------------------------------------------------
  /** Sends (or resends) the OTP. */
  authorize(op) {
    return this.#armed(this.#moves.run(AUTHORIZE, op));
  }
  /** Pays a receipt with a card token or number, enforcing the OTP rules. */
  pay(op) {
    return this.#armed(this.#moves.run(PAY, op));
  }
  /** Confirms a transfer, enforcing the OTP rules. */
  payTransfer(op) {
    return this.#armed(this.#moves.run(PAY_TRANSFER, op));
  }
  holdConfirm(op) {
    return this.#armed(this.#moves.run(HOLD_CONFIRM, op));
  }
  cancel(op) {
    return this.#armed(this.#moves.run(CANCEL, op));
  }
  /** The receipt or transfer as the upstream says it stands now. */
  check(op) {
    return this.#armed(this.#moves.check(op));
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
      store2.audit({ at: now, op: "create", actor: args.owner, request_id: args.requestId, outcome: "ok" });
      outbox.emit(createdEvent(args.kind), null, args.requestId, now);
    });
    if (args.completion) completion.owe(args.completion);
    this.#wake.arm();
  }
  /** The answer this record's create gave, for an identical retry by its owner (src/creation.ts checks the tid row and the replay window); null when none is kept. */
  async replay(owner) {
    const rec = this.#parts.store.load();
    return rec && rec.owner === owner ? rec.answer : null;
  }
  /** What the sandbox console shows of a record: its trail, the tid it was created with, its amount now. */
  async describe() {
    const trail = await this.auditTrail();
    const rec = this.#parts.store.current;
    if (!trail || !rec) return null;
    const amount2 = kindNamed(rec.kind).amountOf(this.#parts.store.parsedBody());
    return { ...trail, tid: rec.tid, upstreamTid: rec.upstream_tid, createdAt: rec.created_at, amount: typeof amount2 === "number" ? amount2 : null };
  }
  /**
   * Erases the owner's personal data (rule 10): the stored body, the create's
   * answer kept for replays and every event in the outbox now, and every body
   * stored from now on. Ids, amounts, states and times stay. False when nothing is stored.
   */
  async erase() {
    const { store: store2, recorder, outbox } = this.#parts;
    if (!store2.load()) return false;
    store2.change(() => {
      recorder.erase();
      outbox.erase();
    });
    return true;
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
  /** The audit trail, oldest first (partner only: the route checks). */
  async auditTrail() {
    const { store: store2 } = this.#parts;
    const rec = store2.load();
    if (!rec) return null;
    const actor = /* @__PURE__ */ __name((who) => who.startsWith("partner:") ? "partner" : who, "actor");
    return {
      id: rec.id,
      kind: rec.kind,
      owner: eventOwner(rec.owner),
      entries: store2.auditTrail().map((entry) => ({ ...entry, actor: actor(entry.actor) }))
    };
  }
  /** Rule 8's reconciliation, the outbox and the record's end, with no caller (src/record/wake.ts). */
  async alarm() {
    await this.#wake.fired();
  }
  /** Whatever an operation left owed has an alarm once it is answered (and its events are drained at once). */
  async #armed(outcome) {
    try {
      return await outcome;
    } finally {
      this.#wake.arm();
    }
  }
};

// src/risk/risk-object.ts
import { DurableObject as DurableObject2 } from "cloudflare:workers";
var RISK_LOG = "log";
var endsOf = /* @__PURE__ */ __name((uses) => uses === void 0 ? [] : Array.isArray(uses) ? uses : Object.values(uses), "endsOf");
var size = /* @__PURE__ */ __name((log2) => Object.values(log2).reduce((n, uses) => n + endsOf(uses).length, 0), "size");
function prune(log2, now) {
  const kept = {};
  for (const [rule, uses] of Object.entries(log2)) {
    const left = Array.isArray(uses) ? uses.filter((until) => until > now) : Object.fromEntries(Object.entries(uses).filter(([, until]) => until > now));
    if (endsOf(left).length > 0) kept[rule] = left;
  }
  return kept;
}
__name(prune, "prune");
var RiskObject = class extends DurableObject2 {
  static {
    __name(this, "RiskObject");
  }
  #alarmSet = false;
  /** The stored log (empty when there is none). */
  #read() {
    return this.ctx.storage.kv.get(RISK_LOG) ?? {};
  }
  /** Writes the log once: one row written, or the key deleted when nothing is left. */
  #write(log2) {
    if (size(log2) === 0) this.ctx.storage.kv.delete(RISK_LOG);
    else this.ctx.storage.kv.put(RISK_LOG, log2);
  }
  /**
   * Checks every counter and, only if none is at its limit, counts the use in
   * each: all or nothing, so a refused call counts nothing. A refusal says
   * which rule and how long until its window lets one more use through. The
   * log is written once if the call counted anything, and not at all if not.
   */
  async admit(counters) {
    const now = clock.now();
    const log2 = prune(this.#read(), now);
    const fresh = [];
    for (const counter of counters) {
      const uses = log2[counter.rule];
      if (counter.distinct !== void 0 && uses !== void 0 && !Array.isArray(uses) && Object.hasOwn(uses, counter.distinct)) continue;
      const ends = endsOf(uses);
      const first = ends.length > 0 ? Math.min(...ends) : null;
      if (ends.length >= counter.limit) return { ok: false, rule: counter.rule, retryAfterMs: Math.max(0, (first ?? now) - now) };
      fresh.push(counter);
    }
    const written = [];
    for (const counter of fresh) {
      const until = now + counter.windowMs;
      if (counter.distinct === void 0) {
        const ends = log2[counter.rule] ?? [];
        let at = ends.length;
        while (at > 0 && ends[at - 1] > until) at--;
        ends.splice(at, 0, until);
        log2[counter.rule] = ends;
        written.push([counter.rule, until]);
      } else {
        log2[counter.rule] = { ...log2[counter.rule], [counter.distinct]: until };
        written.push([counter.rule, until, counter.distinct]);
      }
    }
    if (written.length === 0) return { ok: true, written };
    this.#write(log2);
    await this.#armAlarm(now + Math.max(...fresh.map((c) => c.windowMs)));
    return { ok: true, written };
  }
  /** Takes back what admit counted for a call another subject refused: one write, none if none of it is left. */
  async release(written) {
    const log2 = prune(this.#read(), clock.now());
    let changed = false;
    for (const [rule, until, ref] of written) {
      const uses = log2[rule];
      if (uses === void 0) continue;
      if (ref === void 0) {
        const at = Array.isArray(uses) ? uses.indexOf(until) : -1;
        if (at >= 0) {
          uses.splice(at, 1);
          changed = true;
        }
      } else if (!Array.isArray(uses) && Object.hasOwn(uses, ref)) {
        delete uses[ref];
        changed = true;
      }
    }
    if (changed) this.#write(prune(log2, clock.now()));
  }
  /** The last use's end: expired uses go; an object with none left deletes itself, else waits for its newest use. */
  async alarm() {
    this.#alarmSet = false;
    const stored = this.#read();
    const log2 = prune(stored, clock.now());
    const ends = Object.values(log2).flatMap(endsOf);
    if (ends.length === 0) {
      await this.ctx.storage.deleteAll();
      return;
    }
    if (size(log2) < size(stored)) this.#write(log2);
    await this.#armAlarm(Math.max(...ends));
  }
  /** One alarm at a time, set once and moved on by alarm() itself: an admission writes no alarm when one is pending. */
  async #armAlarm(at) {
    if (this.#alarmSet) return;
    if (await this.ctx.storage.getAlarm() === null) await this.ctx.storage.setAlarm(at);
    this.#alarmSet = true;
  }
};

// src/index.ts
var app = createApp();
var index_default = {
  fetch: app.fetch,
  // The events queue and its dead-letter queue (src/events/delivery.ts tells them apart by batch.queue).
  queue: handleEventBatch,
  // The Cron Trigger ([triggers] in wrangler.toml; in development scripts/dev.mjs fires it every 15 s):
  // one event sweep, then one bounded retention run, on the trigger's own clock. One after the other,
  // each at most six databases at a time, so the invocation never holds more than the Workers limit of
  // six connections. Either failing fails the invocation, once both have run.
  async scheduled(controller, env, _ctx) {
    const now = Number(controller.scheduledTime);
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
      // Erasure keeps its own bounded budget (src/erasure.ts: 50 records or 200 D1 queries a run).
      ...await Promise.allSettled([runErasures(env, now)])
    ];
    for (const run of runs) if (run.status === "rejected") throw run.reason;
  }
};

// src/sandbox/index.ts
import { WorkerEntrypoint } from "cloudflare:workers";

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
function commissionOf(amount2, percent, flat = 0) {
  return Math.ceil(amount2 * percent / 100) + flat;
}
__name(commissionOf, "commissionOf");
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
    qrCodeUrl: `https://ofd.soliq.uz/check?t=${TERMINAL_ID}&r=${receiptId}&c=${time2}&s=${fiscalSign}`
  };
}
__name(fiscalHeader, "fiscalHeader");
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

// src/sandbox/schemas.ts
var Id = pipe(string(), minLength(1), maxLength(64));
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
var IdBody = object({ id: Id });
var ReceiptCreateBody = object({
  tid: Tid2,
  amount: Amount2,
  merchant_id: IntId,
  account: optional(pipe(array(object({ key: string(), value: string(), label: optional(string()) })), maxLength(20)), []),
  description: optional(nullable(pipe(string(), maxLength(500)))),
  is_hold: optional(boolean(), false),
  currency: optional(literal(860, "currency must be 860"), 860)
});
var AuthorizeBody = object({ id: Id, card: TokenCard2 });
var AnonymousAuthorizeBody = object({ id: Id, card: NumberCard2 });
var PayBody = object({ id: Id, card: TokenCard2, otp: Otp2 });
var AnonymousPayBody = object({ id: Id, card: NumberCard2, otp: Otp2 });
var CancelBody = object({
  id: Id,
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
var TransferPayBody = object({ id: Id, otp: Otp2 });

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
function otpTtlMs(env) {
  const ms = Number(env.SANDBOX_OTP_TTL_MS ?? 3e5);
  return Number.isFinite(ms) && ms >= 0 ? ms : 3e5;
}
__name(otpTtlMs, "otpTtlMs");
var cancelAccess = /* @__PURE__ */ __name((env) => String(env.SANDBOX_CANCEL_ACCESS ?? "true").trim().toLowerCase() !== "false", "cancelAccess");
var cancelAccessDenied = /* @__PURE__ */ __name(() => fail2(
  403,
  "CANCEL_ACCESS_DENIED",
  "This partner has no access to cancel; ask the payment service's support to cancel, giving the receipt id and the reason"
), "cancelAccessDenied");
var NOT_JSON = /* @__PURE__ */ Symbol("not JSON");
function loggedFields(raw2) {
  const body = typeof raw2 === "object" && raw2 !== null ? raw2 : {};
  const text = /* @__PURE__ */ __name((value) => typeof value === "string" ? value.slice(0, 128) : null, "text");
  const otp = body.otp !== void 0 && body.otp !== null && body.otp !== "";
  return { tid: text(body.tid) ?? text(body.tId), id: text(body.id), otp };
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
operation("receipt/pay", PayBody, (s, input, env) => s.payReceipt(input, false, otpTtlMs(env)));
operation("receipt/anonymous/pay", AnonymousPayBody, (s, input, env) => s.payReceipt(input, true, otpTtlMs(env)));
operation("receipt/hold-confirm", IdBody, (s, input) => s.holdConfirm(input));
operation("receipt/cancel", CancelBody, async (s, input, env) => cancelAccess(env) ? s.cancel(input) : cancelAccessDenied());
operation("receipt/check-id", IdBody, (s, input) => s.checkId(input));
operation("a2c/create", TransferCreateBody, (s, input) => s.createTransfer(input));
operation("a2c/pay", TransferPayBody, (s, input) => s.payTransfer(input));
operation("a2c/get-by-id", IdBody, (s, input) => s.getTransfer(input));
routes.get("/__sandbox/receipts/:id", async (c) => {
  const record2 = await sandbox(c.env).debugReceipt(c.req.param("id"));
  return record2 ? c.json(record2) : send(c, fail2(404, "RECEIPT_NOT_FOUND", "No receipt with this id"));
});
routes.get("/__sandbox/a2c/:id", async (c) => {
  const record2 = await sandbox(c.env).debugTransfer(c.req.param("id"));
  return record2 ? c.json(record2) : send(c, fail2(404, "RECEIPT_NOT_FOUND", "No transfer with this id"));
});
routes.get("/__sandbox/calls", async (c) => c.json(await sandbox(c.env).calls(c.req.query("id"))));
routes.notFound((c) => send(c, fail2(404, "NOT_FOUND", "No such operation")));
routes.onError((_error, c) => send(c, fail2(500, "INTERNAL_ERROR", "Sandbox internal error")));

// src/sandbox/sandbox-object.ts
import { DurableObject as DurableObject3 } from "cloudflare:workers";

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
    expired_otps INTEGER NOT NULL DEFAULT 0, late_pay_due_ms INTEGER)`,
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
  { table: "transfers", column: "late_pay_due_ms", declaration: "INTEGER" }
];
function ensureSchema(sql) {
  for (const statement of SCHEMA) sql.exec(statement);
  for (const { table: table2, column, declaration } of ADDED_COLUMNS) {
    const columns = sql.exec(`PRAGMA table_info(${table2})`).toArray();
    if (!columns.some((c) => c.name === column)) sql.exec(`ALTER TABLE ${table2} ADD COLUMN ${column} ${declaration}`);
  }
}
__name(ensureSchema, "ensureSchema");

// src/sandbox/store.ts
var randomHex = /* @__PURE__ */ __name((bytes2) => Array.from(crypto.getRandomValues(new Uint8Array(bytes2)), (b) => b.toString(16).padStart(2, "0")).join(""), "randomHex");
var rrn = /* @__PURE__ */ __name(() => String(1e11 + Number.parseInt(randomHex(5), 16) % 9e11), "rrn");
var SandboxStore = class {
  static {
    __name(this, "SandboxStore");
  }
  sql;
  constructor(sql) {
    this.sql = sql;
    ensureSchema(sql);
  }
  // --- rows -----------------------------------------------------------------
  /** Every read of a receipt settles a due supplier answer, then a due late pay, unless told not to. */
  receipt(id, settle = true) {
    const read = /* @__PURE__ */ __name(() => this.sql.exec("SELECT * FROM receipts WHERE id = ?", id).toArray()[0], "read");
    let row = read();
    if (!row || !settle) return row;
    for (const due of [supplierAnswer, latePay]) {
      const fields = due(row, Date.now(), rrn);
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
    const fields = row && settle ? lateTransferPay(row, Date.now()) : null;
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
  checkOtp(table2, record2, otp, live) {
    const verdict = this.#submitOtp(table2, record2, otp, live);
    if (verdict === "correct") return null;
    const current = table2 === "receipts" ? { receipt: this.receiptBody(record2.id) } : { transfer: this.transferBody(record2.id) };
    switch (verdict) {
      case "missing":
        return fail2(400, "OTP_REQUIRED", "An OTP is required to pay");
      case "expired":
        return fail2(400, "OTP_EXPIRED", "No OTP was sent for this receipt, or it has expired; authorize again", current);
      case "wrong":
        return fail2(400, "OTP_INVALID", "OTP is incorrect", { attempts_left: MAX_WRONG_OTPS - record2.wrong_otps - 1, ...current });
      case "exceeded":
        return fail2(400, "OTP_ATTEMPTS_EXCEEDED", "Too many incorrect OTPs; the receipt is cancelled", { attempts_left: 0, ...current });
    }
  }
  #submitOtp(table2, record2, otp, live) {
    if (otp === void 0 || otp === "") return "missing";
    if (!live) {
      this.sql.exec("UPDATE receipts SET otp_attempts = otp_attempts + 1, expired_otps = expired_otps + 1 WHERE id = ?", record2.id);
      return "expired";
    }
    if (otp === CORRECT_OTP) {
      this.sql.exec(`UPDATE ${table2} SET otp_attempts = otp_attempts + 1 WHERE id = ?`, record2.id);
      return "correct";
    }
    const wrong = record2.wrong_otps + 1;
    if (wrong < MAX_WRONG_OTPS) {
      this.sql.exec(`UPDATE ${table2} SET otp_attempts = otp_attempts + 1, wrong_otps = ? WHERE id = ?`, wrong, record2.id);
      return "wrong";
    }
    this.sql.exec(
      `UPDATE ${table2} SET otp_attempts = otp_attempts + 1, wrong_otps = ?, state = ?, cancelled_ms = ?, error = ? WHERE id = ?`,
      wrong,
      State.cancelled,
      Date.now(),
      "OTP attempts exceeded",
      record2.id
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

// src/sandbox/receipts.ts
function resolveCard(card) {
  return "token" in card ? cardByToken(card.token) : cardByNumber(card.number, card.expire);
}
__name(resolveCard, "resolveCard");
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
    commissionOf(input.amount, merchant2.commission_percent),
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
  const now = Date.now();
  if (r.otp_sent_ms !== null && now - r.otp_sent_ms < wait) {
    return fail2(429, "OTP_RESEND_TOO_SOON", "An OTP was sent recently", { wait: wait - (now - r.otp_sent_ms) });
  }
  store2.update("receipts", r.id, { otp_sent_ms: now });
  return ok({ id: r.id, sent: true, phone: card.phone, wait });
}
__name(authorize, "authorize");
function payReceipt(store2, env, input, anonymous, otpTtlMs2) {
  const card = resolveCard(input.card);
  const r = awaitingPayment(store2, card, input.id);
  if ("ok" in r) return r;
  if (anonymous || r.is_verify === 1) {
    const live = r.otp_sent_ms !== null && Date.now() - r.otp_sent_ms < otpTtlMs2;
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
        Date.now() + msSetting(env.SANDBOX_LATE_MS, 2e4),
        r.id
      );
      return stalled();
  }
  const now = Date.now();
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
    store2.update("receipts", r.id, { ...charged, state: State.paid, paid_ms: now, ofd: JSON.stringify(saleOfd(r, now)) });
  }
  const paid = store2.receipt(r.id, false);
  const body = anonymous ? reducedReceiptBody(paid) : receiptBody(paid);
  return card.behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
}
__name(payReceipt, "payReceipt");
function holdConfirm(store2, input) {
  const r = store2.receipt(input.id);
  if (!r) return receiptNotFound();
  if (r.state === State.cancelled) return fail2(400, "RECEIPT_CANCELLED", "Receipt is cancelled", { receipt: receiptBody(r) });
  if (r.state !== State.held) return fail2(400, "RECEIPT_NOT_HELD", "Receipt is not held", { receipt: receiptBody(r) });
  const now = Date.now();
  store2.update("receipts", r.id, { state: State.paid, paid_ms: now, hold_status: "confirmed", ofd: JSON.stringify(saleOfd(r, now)) });
  return ok(store2.receiptBody(r.id));
}
__name(holdConfirm, "holdConfirm");
function cancel(store2, input) {
  const r = store2.receipt(input.id);
  if (!r) return receiptNotFound();
  const qr = findMerchant(r.merchant_id)?.kind === "qr";
  if (qr || r.state === State.cancelled || r.state === State.supplierPending) {
    const why = qr ? "QR merchants do not allow cancel" : `Cancel is not allowed in state ${r.state}`;
    return fail2(400, "CANCEL_NOT_ALLOWED", why, { receipt: receiptBody(r) });
  }
  const now = Date.now();
  store2.update("receipts", r.id, {
    state: State.cancelled,
    cancelled_ms: now,
    cancel_reason: input.reason ?? null,
    cancelled_by: input.cancelledBy ?? null,
    ...r.state === State.paid ? { ofd: JSON.stringify(refundOfd(r, now)) } : {},
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
    late_pay_due_at: r.late_pay_due_ms
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
    commissionOf(input.amount, rate.percent, rate.flat),
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
      Date.now() + msSetting(env.SANDBOX_LATE_MS, 2e4),
      t.id
    );
    return stalled();
  }
  store2.update("transfers", t.id, { state: State.paid, paid_ms: Date.now(), error: "" });
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
var SandboxObject = class extends DurableObject3 {
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
  payReceipt(input, anonymous, otpTtlMs2) {
    return payReceipt(this.#store, this.env, input, anonymous, otpTtlMs2);
  }
  holdConfirm(input) {
    return holdConfirm(this.#store, input);
  }
  cancel(input) {
    return cancel(this.#store, input);
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
var sandboxPaths = new Hono3().route("/", sandboxConsole).all("/__sandbox/*", (c) => c.env.UPSTREAM.fetch(c.req.raw));
var dev_default = {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__sandbox" && env.UPSTREAM) {
      url.pathname = "/__sandbox/";
      return Response.redirect(url.toString(), 301);
    }
    if (url.pathname.startsWith("/__sandbox/") && env.UPSTREAM) {
      return sandboxPaths.fetch(request, env, ctx);
    }
    return index_default.fetch(request, env, ctx);
  },
  queue: index_default.queue,
  scheduled: index_default.scheduled
};
export {
  ReceiptObject,
  RiskObject,
  SandboxObject,
  SandboxUpstream,
  dev_default as default
};
//# sourceMappingURL=dev.js.map
