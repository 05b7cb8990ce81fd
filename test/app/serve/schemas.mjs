// What the tests of `forge serve`'s APIs share: JSON schemas and tools to constrain the test
// model with, and `ajv` (an independent JSON Schema validator) to check the answers.
//
// The committed test model writes gibberish, so the tests check what the grammar guarantees
// whatever the weights: the answer is valid under its schema and ends. It must end: between two
// JSON tokens the grammar allows at most 21 bytes of whitespace (docs/GRAMMAR.md), and `person`
// has about 24 such gaps and at most ~200 bytes of strings, keys and numbers, so a whole answer
// is under 800 bytes, hence under 800 tokens.
import assert from "node:assert/strict";
import Ajv from "ajv";

const ajv = new Ajv({strict: false});
export const validator = (schema) => { const v = ajv.compile(schema); return (x) => v(x) || assert.fail(ajv.errorsText(v.errors)); };

export const person = {
    type: "object",
    properties: {
        name: {type: "string", minLength: 1, maxLength: 12},
        age: {type: "integer", minimum: 0, maximum: 120},
        mood: {enum: ["happy", "sad", "calm"]},
        tags: {type: "array", items: {type: "string", maxLength: 6}, maxItems: 3},
    },
    required: ["name", "age", "mood"],
    additionalProperties: false,
};

export const weather = {
    type: "function",
    function: {
        name: "get_weather",
        description: "The current weather in a city",
        parameters: {type: "object", properties: {city: {type: "string", maxLength: 16}, unit: {enum: ["c", "f"]}},
                     required: ["city", "unit"], additionalProperties: false},
    },
};
export const add = {
    type: "function",
    function: {
        name: "add",
        description: "Add two integers",
        parameters: {type: "object", properties: {a: {type: "integer", minimum: -99, maximum: 99}, b: {type: "integer", minimum: -99, maximum: 99}},
                     required: ["a", "b"], additionalProperties: false},
    },
};
