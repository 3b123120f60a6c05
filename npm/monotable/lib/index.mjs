// ES module entry: the same functions as the CommonJS one (index.cjs).
import lib from "./index.cjs";

export const { startMonotable, binaryPath } = lib;
