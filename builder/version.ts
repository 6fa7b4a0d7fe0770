/** The builder's version, written into every manifest. Kept in step with package.json by a test. */
export const BUILDER_VERSION = '0.1.0';
