//! The README's table of environment variables and the variables
//! `vecl::Config` reads are the same list, in the same order, with the
//! same defaults.

#[test]
fn the_readme_table_lists_exactly_the_variables_config_reads() {
    let readme = include_str!("../README.md");
    let marker = "<!-- environment variables:";
    let start = readme
        .find(marker)
        .expect("the README marks its table of environment variables");
    let documented: Vec<(&str, &str)> = readme[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and its rule
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`'), cells[2])
        })
        .collect();
    let read: Vec<(&str, &str)> = vecl::config::VARIABLES
        .iter()
        .map(|v| (v.name, v.default))
        .collect();
    assert_eq!(documented, read);
}
