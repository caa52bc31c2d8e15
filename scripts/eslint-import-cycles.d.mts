// Types for the lint rule's module (plain JavaScript, as eslint.config.js loads it), for the rule's test.
import type { Rule } from 'eslint';

export declare const noImportCycles: Rule.RuleModule;
