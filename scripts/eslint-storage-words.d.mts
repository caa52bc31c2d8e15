// Types for the lint rule's module (plain JavaScript, as eslint.config.js loads it), for the rule's test.
import type { Rule } from 'eslint';

export declare const noStorageWords: Rule.RuleModule;
export declare function storageWords(schemaText: string): { words: Set<string>; columns: Set<string> };
