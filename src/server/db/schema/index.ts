export * from "./auth";
export * from "./avatar";
export * from "./campaigns";
export * from "./compliance";
export * from "./crm";
export * from "./outbox";
export * from "./studio";
export * from "./workspaces";
