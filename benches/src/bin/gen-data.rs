//! Writes the benchmark inputs under `benches/data/` (once; again when the generators
//! change) and lists them with their sizes.

fn main() {
    let dir = tokensieve_benches::ensure_data();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("data directory")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "txt"))
        .map(|e| {
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            (e.file_name().to_string_lossy().into_owned(), len)
        })
        .collect();
    names.sort();
    println!("data: {}", dir.display());
    for (n, len) in names {
        println!("{len:>12}  {n}");
    }
}
