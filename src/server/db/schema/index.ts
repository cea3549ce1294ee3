export * from "./auth";
export * from "./outbox";
export * from "./crm";
export * from "./campaigns";
export * from "./studio";
export * from "./avatar";
export * from "./compliance";
