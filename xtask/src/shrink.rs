//! A size pass over the bundles' wasm after wasm-bindgen: functions whose bodies are identical
//! are merged, and each function's locals are renumbered by how often they are used.
//!
//! Why: the engine's generic collections are instantiated for several types of the same layout,
//! and LLVM on stable Rust does not merge the identical copies for wasm (rustc's
//! merge-functions is a nightly flag and wasm-ld has no `--icf`), so the bundles carried many
//! byte-identical bodies. Renumbering locals so the busiest come first within their type makes
//! bodies more alike, which is what gzip (the budgets count gzipped bytes) feeds on. Binaryen's
//! `wasm-opt` has both passes, but its npm package is 100 MB of tools for this; the parser and
//! encoder here are the ones wasm-bindgen already builds.
//!
//! Merging keeps every function's index: all references to a copy (calls, `ref.func`, table
//! elements, exports, the start function) are pointed at the first function with that body,
//! and the copy's body becomes `unreachable`. No function renumbers, so the name section is
//! copied as it is and its function names stay true; its local names (the section is kept only
//! for profiling, `STREAMLAB_KEEP_NAMES`) may name the wrong local once locals are renumbered.
//! The result is validated before it is written.
//!
//! Last, the imports are renamed `a`, `b`, ... from module `w`: wasm-bindgen names each after
//! its Rust item with a 16-digit hash, thousands of bytes gzip cannot shrink. The glue's
//! import object is renamed to match ([`rename_glue`]), and the build fails if it cannot be.

use std::collections::{HashMap, HashSet};

use wasm_encoder::reencode::{utils, Error, Reencode};
use wasm_encoder::{CodeSection, Function, Instruction, ValType};
use wasmparser::{FunctionBody, Operator, Parser, Payload, TypeRef};

/// What the passes did, for the build's log.
pub struct Shrunk {
    pub bytes: Vec<u8>,
    pub merged: usize,
    /// Each import's module and name as wasm-bindgen wrote them, in order (renamed by index).
    pub imports: Vec<(String, String)>,
}

/// The module the imports are renamed into.
const MODULE: &str = "w";

/// The short name of import `n` (bijective base 52, lowest digit first): letters only, so it
/// is a plain key in the glue's object.
fn short(mut n: usize) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut name = String::new();
    loop {
        name.push(LETTERS[n % LETTERS.len()] as char);
        n /= LETTERS.len();
        if n == 0 {
            return name;
        }
        n -= 1;
    }
}

/// The wasm-bindgen glue `js` with its import object renamed as [`shrink`] renamed the
/// imports: each `name: function` key of `__wbg_get_imports`, and the module's key. Fails
/// unless every import is found exactly once, so a change in wasm-bindgen's output stops the
/// build instead of shipping glue that does not link.
pub fn rename_glue(js: &str, imports: &[(String, String)]) -> Result<String, String> {
    let start = js.find("function __wbg_get_imports()").ok_or("the glue has no __wbg_get_imports")?;
    let end = start + js[start..].find("\n}\n").ok_or("__wbg_get_imports does not end")?;
    let mut names: HashMap<&str, String> = HashMap::new();
    for (n, (_, name)) in imports.iter().enumerate() {
        names.insert(name, short(n));
    }
    let modules: HashSet<&str> = imports.iter().map(|(module, _)| module.as_str()).collect();
    let (mut found, mut out) = (0, String::with_capacity(js.len()));
    for line in js[start..end].split_inclusive('\n') {
        let indent = &line[..line.len() - line.trim_start().len()];
        let key = line.trim_start().split_once(": ").map(|(key, _)| key);
        match key.and_then(|key| names.get(key).map(|short| (key, short))) {
            Some((key, short)) => {
                found += 1;
                out.push_str(&format!("{indent}{short}{}", &line[indent.len() + key.len()..]));
            }
            None => match key.filter(|key| modules.contains(key.trim_matches('"'))) {
                Some(key) => out.push_str(&format!("{indent}\"{MODULE}\"{}", &line[indent.len() + key.len()..])),
                None => out.push_str(line),
            },
        }
    }
    if found != imports.len() {
        return Err(format!("the glue names {found} of the wasm's {} imports", imports.len()));
    }
    Ok(format!("{}{out}{}", &js[..start], &js[end..]))
}

/// Merges identical functions until none are left, then renumbers locals. (Merging again
/// after renumbering finds no more on the bundles: locals were already numbered alike.)
pub fn shrink(wasm: &[u8]) -> Result<Shrunk, String> {
    let mut stubbed = HashSet::new();
    let bytes = merge(wasm.to_vec(), &mut stubbed)?;
    let module = Facts::of(&bytes)?;
    let mut last = Pass { module, renumber: true, ..Pass::new(stubbed.clone()) };
    let bytes = rewrite(&bytes, &mut last)?;
    wasmparser::Validator::new().validate_all(&bytes).map_err(|e| format!("the shrunk wasm does not validate: {e}"))?;
    Ok(Shrunk { bytes, merged: stubbed.len(), imports: last.imports })
}

/// Merges identical functions, adding the copies to `stubbed`, until none are left: each round
/// can make more bodies identical (their calls now name the same function), and a few rounds
/// reach the fixed point.
fn merge(mut bytes: Vec<u8>, stubbed: &mut HashSet<u32>) -> Result<Vec<u8>, String> {
    for _ in 0..16 {
        let module = Facts::of(&bytes)?;
        let target = module.duplicates(&bytes, stubbed);
        if target.is_empty() {
            break;
        }
        stubbed.extend(target.keys().copied());
        bytes = rewrite(&bytes, &mut Pass { module, target, ..Pass::new(stubbed.clone()) })?;
    }
    Ok(bytes)
}

/// What the passes need to know of a module: imported function count, each defined
/// function's type, each type's parameter count, and the bodies.
struct Facts {
    imported: u32,
    types: Vec<u32>,
    params: Vec<u32>,
    bodies: Vec<std::ops::Range<usize>>,
}

impl Facts {
    fn of(bytes: &[u8]) -> Result<Facts, String> {
        let mut facts = Facts { imported: 0, types: vec![], params: vec![], bodies: vec![] };
        for payload in Parser::new(0).parse_all(bytes) {
            match payload.map_err(|e| e.to_string())? {
                Payload::TypeSection(reader) => {
                    for group in reader.into_iter_err_on_gc_types() {
                        facts.params.push(group.map_err(|e| e.to_string())?.params().len() as u32);
                    }
                }
                Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        if matches!(import.map_err(|e| e.to_string())?.ty, TypeRef::Func(_) | TypeRef::FuncExact(_)) {
                            facts.imported += 1;
                        }
                    }
                }
                Payload::FunctionSection(reader) => {
                    for ty in reader {
                        facts.types.push(ty.map_err(|e| e.to_string())?);
                    }
                }
                Payload::CodeSectionEntry(body) => facts.bodies.push(body.range()),
                _ => {}
            }
        }
        Ok(facts)
    }

    /// Each defined function whose type and body equal an earlier one's (and that is not a
    /// stub already), mapped to that earlier function: indices in the module's function space.
    fn duplicates(&self, bytes: &[u8], stubbed: &HashSet<u32>) -> HashMap<u32, u32> {
        let mut first: HashMap<(u32, &[u8]), u32> = HashMap::new();
        let mut target = HashMap::new();
        for (n, range) in self.bodies.iter().enumerate() {
            let index = self.imported + n as u32;
            if stubbed.contains(&index) {
                continue;
            }
            match first.entry((self.types[n], &bytes[range.clone()])) {
                std::collections::hash_map::Entry::Occupied(earlier) => {
                    target.insert(index, *earlier.get());
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(index);
                }
            }
        }
        target
    }
}

fn rewrite(bytes: &[u8], pass: &mut Pass) -> Result<Vec<u8>, String> {
    let mut module = wasm_encoder::Module::new();
    pass.parse_core_module(&mut module, Parser::new(0), bytes).map_err(|e| format!("{e:?}"))?;
    Ok(module.finish())
}

struct Pass {
    module: Facts,
    target: HashMap<u32, u32>,
    stubbed: HashSet<u32>,
    /// The last pass: locals renumbered, imports renamed.
    renumber: bool,
    /// The body being encoded, counted from the first defined function.
    body: u32,
    /// The imports renamed so far, as they were named.
    imports: Vec<(String, String)>,
}

impl Pass {
    fn new(stubbed: HashSet<u32>) -> Pass {
        let module = Facts { imported: 0, types: vec![], params: vec![], bodies: vec![] };
        Pass { module, target: HashMap::new(), stubbed, renumber: false, body: 0, imports: vec![] }
    }
}

impl Reencode for Pass {
    type Error = std::convert::Infallible;

    fn parse_custom_section(
        &mut self,
        module: &mut wasm_encoder::Module,
        section: wasmparser::CustomSectionReader<'_>,
    ) -> Result<(), Error<Self::Error>> {
        // As it is: re-encoding the name section would send its function indices through
        // `function_index`, naming each merged copy's index after the function it became.
        module.section(&self.custom_section(section)?);
        Ok(())
    }

    fn parse_imports(
        &mut self,
        section: &mut wasm_encoder::ImportSection,
        imports: wasmparser::Imports<'_>,
    ) -> Result<(), Error<Self::Error>> {
        // wasm-bindgen writes one import per entry; another form keeps its names (the glue
        // still matches them, as only renamed imports are renamed in it).
        let wasmparser::Imports::Single(_, import) = imports else {
            return utils::parse_imports(self, section, imports);
        };
        if !self.renumber {
            return utils::parse_imports(self, section, imports);
        }
        let ty = self.entity_type(import.ty)?;
        section.import(MODULE, &short(self.imports.len()), ty);
        self.imports.push((import.module.to_owned(), import.name.to_owned()));
        Ok(())
    }

    fn function_index(&mut self, func: u32) -> Result<u32, Error<Self::Error>> {
        Ok(self.target.get(&func).copied().unwrap_or(func))
    }

    fn parse_function_body(
        &mut self,
        code: &mut CodeSection,
        body: FunctionBody<'_>,
    ) -> Result<(), Error<Self::Error>> {
        let index = self.module.imported + self.body;
        let ty = self.module.types[self.body as usize];
        self.body += 1;
        if self.stubbed.contains(&index) {
            // Nothing refers to it any more; it keeps its index so nothing renumbers.
            let mut stub = Function::new([]);
            stub.instruction(&Instruction::Unreachable);
            stub.instruction(&Instruction::End);
            code.function(&stub);
            return Ok(());
        }
        if !self.renumber {
            return utils::parse_function_body(self, code, body);
        }
        let params = self.module.params[ty as usize];
        let mut declared: Vec<ValType> = vec![];
        for pair in body.get_locals_reader()? {
            let (count, ty) = pair?;
            let ty = self.val_type(ty)?;
            declared.extend(std::iter::repeat_n(ty, count as usize));
        }
        let mut uses = vec![0u32; declared.len()];
        let mut reader = body.get_operators_reader()?;
        while !reader.eof() {
            if let Operator::LocalGet { local_index }
            | Operator::LocalSet { local_index }
            | Operator::LocalTee { local_index } = reader.read()?
            {
                if let Some(n) = local_index.checked_sub(params) {
                    uses[n as usize] += 1;
                }
            }
        }
        // Types keep their order of first declaration; within a type the busiest come first.
        let mut order: Vec<usize> = (0..declared.len()).collect();
        let rank = |ty: &ValType| declared.iter().position(|t| t == ty).unwrap_or(0);
        order.sort_by_key(|&n| (rank(&declared[n]), std::cmp::Reverse(uses[n]), n));
        let mut renumbered = vec![0u32; declared.len()];
        let mut runs: Vec<(u32, ValType)> = vec![];
        for (new, &old) in order.iter().enumerate() {
            renumbered[old] = params + new as u32;
            match runs.last_mut() {
                Some((count, ty)) if *ty == declared[old] => *count += 1,
                _ => runs.push((1, declared[old])),
            }
        }
        let local = |index: u32| match index.checked_sub(params) {
            Some(n) => renumbered[n as usize],
            None => index,
        };
        let mut out = Function::new(runs);
        let mut reader = body.get_operators_reader()?;
        while !reader.eof() {
            let instruction = match reader.read()? {
                Operator::LocalGet { local_index } => Instruction::LocalGet(local(local_index)),
                Operator::LocalSet { local_index } => Instruction::LocalSet(local(local_index)),
                Operator::LocalTee { local_index } => Instruction::LocalTee(local(local_index)),
                other => self.instruction(other)?,
            };
            out.instruction(&instruction);
        }
        code.function(&out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_encoder::{CodeSection, ExportKind, ExportSection, FunctionSection, Module, TypeSection};

    /// A function's locals (runs of a type) and instructions.
    type Body = (Vec<(u32, ValType)>, Vec<Instruction<'static>>);

    /// A module of `bodies`, each a function of type `(i32) -> i32` with the locals given,
    /// exporting function `n` as `fn`.
    fn module(bodies: &[Body]) -> Vec<u8> {
        let mut types = TypeSection::new();
        types.ty().function([ValType::I32], [ValType::I32]);
        let mut functions = FunctionSection::new();
        let mut exports = ExportSection::new();
        let mut code = CodeSection::new();
        for (n, (locals, body)) in bodies.iter().enumerate() {
            functions.function(0);
            exports.export(&format!("f{n}"), ExportKind::Func, n as u32);
            let mut f = Function::new(locals.clone());
            for instruction in body {
                f.instruction(instruction);
            }
            f.instruction(&Instruction::End);
            code.function(&f);
        }
        let mut module = Module::new();
        module.section(&types).section(&functions).section(&exports).section(&code);
        module.finish()
    }

    fn exports(bytes: &[u8]) -> Vec<(String, u32)> {
        let mut out = vec![];
        for payload in Parser::new(0).parse_all(bytes) {
            if let Payload::ExportSection(reader) = payload.unwrap() {
                for export in reader {
                    let export = export.unwrap();
                    out.push((export.name.to_owned(), export.index));
                }
            }
        }
        out
    }

    fn bodies(bytes: &[u8]) -> Vec<Vec<Operator<'_>>> {
        let mut out = vec![];
        for payload in Parser::new(0).parse_all(bytes) {
            if let Payload::CodeSectionEntry(body) = payload.unwrap() {
                let mut reader = body.get_operators_reader().unwrap();
                let mut ops = vec![];
                while !reader.eof() {
                    ops.push(reader.read().unwrap());
                }
                out.push(ops);
            }
        }
        out
    }

    #[test]
    fn copies_merge_into_the_first_and_callers_of_copies_merge_next() {
        let one = || vec![Instruction::I32Const(1)];
        let calls =
            |f| vec![Instruction::LocalGet(0), Instruction::Call(f), Instruction::Drop, Instruction::I32Const(2)];
        // f0 and f1 are the same; f2 calls f1 and f3 calls f0, so they are the same once f1
        // is f0; f4 differs.
        let wasm = module(&[
            (vec![], one()),
            (vec![], one()),
            (vec![], calls(1)),
            (vec![], calls(0)),
            (vec![], vec![Instruction::I32Const(3)]),
        ]);
        let shrunk = shrink(&wasm).unwrap();
        assert_eq!(shrunk.merged, 2);
        let names: Vec<(String, u32)> =
            [("f0", 0), ("f1", 0), ("f2", 2), ("f3", 2), ("f4", 4)].iter().map(|(n, i)| (n.to_string(), *i)).collect();
        assert_eq!(exports(&shrunk.bytes), names);
        let after = bodies(&shrunk.bytes);
        assert_eq!(after[1], vec![Operator::Unreachable, Operator::End]);
        assert_eq!(after[3], vec![Operator::Unreachable, Operator::End]);
        assert!(after[2].contains(&Operator::Call { function_index: 0 }));
    }

    #[test]
    fn the_busiest_local_of_a_type_comes_first_and_parameters_stay() {
        // Locals 1 and 2 (i32) and 3 (i64): local 2 is used three times, local 1 once.
        let body = vec![
            Instruction::LocalGet(0),
            Instruction::LocalSet(1),
            Instruction::LocalGet(0),
            Instruction::LocalTee(2),
            Instruction::LocalGet(2),
            Instruction::I32Add,
            Instruction::LocalSet(2),
            Instruction::I64Const(5),
            Instruction::LocalSet(3),
            Instruction::I32Const(0),
        ];
        let wasm = module(&[(vec![(2, ValType::I32), (1, ValType::I64)], body)]);
        let shrunk = shrink(&wasm).unwrap();
        assert_eq!(shrunk.merged, 0);
        let after = bodies(&shrunk.bytes);
        let locals: Vec<u32> = after[0]
            .iter()
            .filter_map(|op| match op {
                Operator::LocalGet { local_index }
                | Operator::LocalSet { local_index }
                | Operator::LocalTee { local_index } => Some(*local_index),
                _ => None,
            })
            .collect();
        assert_eq!(locals, vec![0, 2, 0, 1, 1, 1, 3]);
    }

    #[test]
    fn imports_take_short_names_and_the_glue_follows() {
        let mut types = TypeSection::new();
        types.ty().function([], []);
        let mut imports = wasm_encoder::ImportSection::new();
        imports.import("./x_bg.js", "__wbg_log_0123456789abcdef", wasm_encoder::EntityType::Function(0));
        imports.import("./x_bg.js", "__wbg_now_fedcba9876543210", wasm_encoder::EntityType::Function(0));
        let mut module = Module::new();
        module.section(&types).section(&imports);
        let shrunk = shrink(&module.finish()).unwrap();
        let renamed: Vec<(String, String)> = wasmparser::Parser::new(0)
            .parse_all(&shrunk.bytes)
            .filter_map(|p| match p.unwrap() {
                Payload::ImportSection(r) => Some(r.into_imports().map(|i| i.unwrap()).collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .map(|i| (i.module.to_owned(), i.name.to_owned()))
            .collect();
        assert_eq!(renamed, [("w".to_owned(), "a".to_owned()), ("w".to_owned(), "b".to_owned())]);
        let glue = "let x;\nfunction __wbg_get_imports() {\n    const import0 = {\n        __proto__: null,\n        __wbg_now_fedcba9876543210: function() {\n            return Date.now();\n        },\n        __wbg_log_0123456789abcdef: function(a) {\n            console.log(a);\n        },\n    };\n    return {\n        __proto__: null,\n        \"./x_bg.js\": import0,\n    };\n}\nlet y;\n";
        let out = rename_glue(glue, &shrunk.imports).unwrap();
        assert_eq!(
            out,
            glue.replace("__wbg_now_fedcba9876543210", "b")
                .replace("__wbg_log_0123456789abcdef", "a")
                .replace("./x_bg.js", "w")
        );
        // An import the glue does not name stops the build.
        assert!(rename_glue(&glue.replace("__wbg_log_0123456789abcdef: ", "other: "), &shrunk.imports).is_err());
        assert_eq!((short(0), short(51), short(52), short(53)), ("a".into(), "Z".into(), "aa".into(), "ba".into()));
    }
}
