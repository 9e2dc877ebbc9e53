"""C# `using` directives as fan-in, each tree indexed for real: the cases hand-made mutants of
indexer/lang/csharp/ got past, asserted as the C# compiler binds the names and
docs/languages.md says."""

from __future__ import annotations

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.store.database import Store
from tests.indexed import import_graph
from tests.reindexed import reindexed_as_cold

CSPROJ = '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n{}  </ItemGroup>\n</Project>\n'


def test_a_namespace_alias_is_no_use_of_a_class_named_for_the_namespace(tmp_path):
    # `using M = Shop.Models;` binds M; `Models` on its line names the namespace, not the
    # class Shop.Models.Models, so Models.cs gains no importer
    graph = import_graph(tmp_path, {
        "Web/Page.cs": "using M = Shop.Models;\n\nnamespace Shop.Web\n{\n    class Page { M.User owner; }\n}\n",
        "Models/User.cs": "namespace Shop.Models\n{\n    public class User {}\n}\n",
        "Models/Models.cs": "namespace Shop.Models\n{\n    public class Models {}\n}\n",
    })
    assert graph.edges == {("Web/Page.cs", "Models/User.cs")}
    assert graph.fan_in == {"Models/User.cs": 1}


def test_using_static_names_the_top_level_type_not_a_nested_one_of_its_name(tmp_path):
    # App.Util.MathX is the type declared in the namespace; Outer's nested MathX is
    # App.Util.Outer.MathX, whatever its simple name
    graph = import_graph(tmp_path, {
        "Program.cs": "using static App.Util.MathX;\n\nclass Program { int x = Twice(2); }\n",
        "Util/Numbers.cs": "namespace App.Util\n{\n    public static class MathX { public static int Twice(int x) => 2 * x; }\n}\n",
        "Util/Outer.cs": "namespace App.Util\n{\n    public class Outer { public static class MathX {} }\n}\n",
    })
    assert graph.edges == {("Program.cs", "Util/Numbers.cs")}
    assert graph.fan_in == {"Util/Numbers.cs": 1}


def test_a_struct_or_record_struct_is_a_type_a_using_names(tmp_path):
    # structs, like classes, are named by `using static` and by an alias of a type, in a file
    # not named for them
    graph = import_graph(tmp_path, {
        "Program.cs": "using static App.Geo.Vec;\nusing P = App.Geo.Point;\n\nclass Program { P p; Vec v = Zero; }\n",
        "Geo/Shapes.cs": "namespace App.Geo\n{\n    public struct Vec { public static Vec Zero; }\n"
                         "    public record struct Point(int X, int Y);\n}\n",
    })
    assert graph.edges == {("Program.cs", "Geo/Shapes.cs")}
    assert graph.fan_in == {"Geo/Shapes.cs": 1}
    assert graph.unresolved == set()


def test_a_reference_built_from_another_msbuild_property_reaches_nothing(tmp_path):
    # `..\\$(Variant)\\..\\Core\\Core.csproj` names a folder only a build knows: App sees no
    # project but its own, so Core.Lib is no namespace of its, whatever the path folds to
    graph = import_graph(tmp_path, {
        "App/App.csproj": CSPROJ.format('    <ProjectReference Include="..\\$(Variant)\\..\\Core\\Core.csproj" />\n'),
        "App/Page.cs": "using Core.Lib;\n\nclass Page { Widget w; }\n",
        "Core/Core.csproj": CSPROJ.format(""),
        "Core/Widget.cs": "namespace Core.Lib\n{\n    public class Widget {}\n}\n",
    })
    assert graph.edges == set()
    assert graph.fan_in == {}
    assert graph.unresolved == {("App/Page.cs", "Core.Lib", "external")}


def test_a_file_that_comes_to_declare_a_namespace_reindexes_as_cold(tmp_path):
    # Thing.cs moves from the global namespace into Shop.Core: Program.cs's `using Shop.Core;`
    # now reaches it, on a re-index as on a cold one
    builder = RepoBuilder(tmp_path / "repo")
    commits = [builder.commit({
        "Program.cs": "using Shop.Core;\n\nclass Program { Thing t; Other o; }\n",
        "Core/Other.cs": "namespace Shop.Core\n{\n    public class Other {}\n}\n",
        "Core/Thing.cs": "public class Thing {}\n",
    }, message="global Thing")]
    commits.append(builder.commit({"Core/Thing.cs": "namespace Shop.Core\n{\n    public class Thing {}\n}\n"},
                                  message="Thing in Shop.Core"))
    reindexed_as_cold(str(builder.path), commits, tmp_path / "incremental")
    with Store.open(tmp_path / "incremental") as store:
        snap = api.snapshot(str(builder.path), commits[1], store=store)
        assert [e.target for e in snap.imports("Program.cs")] == ["Core/Other.cs", "Core/Thing.cs"]
        assert snap.fan_in("Core/Thing.cs") == 1


def test_a_project_of_a_big_solution_sees_the_projects_at_the_edges_of_what_it_keeps(tmp_path):
    # 140 projects and one referencing the first and the last but one: what it sees beyond
    # itself is kept as intervals of project numbers, and a project on an interval's bound
    # is seen like any other
    files = {f"p{i:03d}/p{i:03d}.csproj": CSPROJ.format("") for i in range(141)}
    files["p000/First.cs"] = "namespace Lib.First\n{\n    public class Head {}\n}\n"
    files["p139/Last.cs"] = "namespace Lib.Last\n{\n    public class Tail {}\n}\n"
    files["zapp/zapp.csproj"] = CSPROJ.format('    <ProjectReference Include="..\\p000\\p000.csproj" />\n'
                                              '    <ProjectReference Include="..\\p139\\p139.csproj" />\n')
    files["zapp/Page.cs"] = "using Lib.First;\nusing Lib.Last;\n\nclass Page { Head h; Tail t; }\n"
    graph = import_graph(tmp_path, files)
    assert graph.edges == {("zapp/Page.cs", "p000/First.cs"), ("zapp/Page.cs", "p139/Last.cs")}
    assert graph.fan_in == {"p000/First.cs": 1, "p139/Last.cs": 1}


def test_every_csproj_of_a_folder_and_every_form_of_a_reference_count(tmp_path):
    # Core/ holds two projects' files (Core.Legacy.csproj sorts first, Core.csproj names
    # Util); Web's reference carries a Condition before its Include
    graph = import_graph(tmp_path, {
        "Util/Util.csproj": CSPROJ.format(""),
        "Util/Text.cs": "namespace Util.Text\n{\n    public class Slug {}\n}\n",
        "Core/Core.Legacy.csproj": CSPROJ.format(""),
        "Core/Core.csproj": CSPROJ.format('    <ProjectReference Include="..\\Util\\Util.csproj" />\n'),
        "Core/Use.cs": "using Util.Text;\n\nclass Use { Slug s; }\n",
        "Web/Web.csproj": CSPROJ.format("    <ProjectReference Condition=\"'$(TargetFramework)' == 'net8.0'\" "
                                        'Include="..\\Util\\Util.csproj" />\n'),
        "Web/Page.cs": "using Util.Text;\n\nclass Page { Slug s; }\n",
    })
    assert graph.edges == {("Core/Use.cs", "Util/Text.cs"), ("Web/Page.cs", "Util/Text.cs")}
    assert graph.fan_in == {"Util/Text.cs": 2}
