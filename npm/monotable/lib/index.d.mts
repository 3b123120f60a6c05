// The ES module entry's types: the same declarations as the CommonJS entry's (index.d.cts).
export * from "./index.cjs";
