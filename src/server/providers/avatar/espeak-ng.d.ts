// Types for the espeak-ng npm package (an Emscripten build of the eSpeak NG command line, ES module).
declare module "espeak-ng" {
  export interface ESpeakNgModule {
    FS: {
      readFile(path: string): Uint8Array;
      writeFile(path: string, data: string | Uint8Array): void;
    };
  }
  export interface ESpeakNgOptions {
    /** the espeak-ng command line arguments */
    arguments?: string[];
    preRun?: ((module: ESpeakNgModule) => void)[];
    print?: (text: string) => void;
    printErr?: (text: string) => void;
    instantiateWasm?: (
      imports: WebAssembly.Imports,
      done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) => object;
  }
  export default function ESpeakNg(options?: ESpeakNgOptions): Promise<ESpeakNgModule>;
}
