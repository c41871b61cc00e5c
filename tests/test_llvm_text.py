"""The LLVM text writer of the DXIL view (`wgc.metadata.llvm_text`): names, strings, integers and
the numbering of metadata as llvm-dis prints them (expected texts written by hand from LLVM's
AsmWriter rules: `printLLVMNameWithoutPrefix`, `printEscapedString`, `SlotTracker::CreateMetadataSlot`)."""

from __future__ import annotations

from wgc.metadata.llvm_text import Function, Global, Int, Module, llvm_name, node


def test_names_are_bare_unless_llvm_quotes_them():
    """LLVM quotes a name whose first character is a digit or that holds a character other than
    letters, digits, '-', '.' and '_'."""
    assert llvm_name("@", "Generate") == "@Generate"
    assert llvm_name("@", "Leaf.2") == "@Leaf.2"
    assert llvm_name("%", "class.RaytracingAccelerationStructure") == "%class.RaytracingAccelerationStructure"
    assert llvm_name("@", "ns::Generate") == '@"ns::Generate"'
    assert llvm_name("%", "class.Texture2D<float>") == '%"class.Texture2D<float>"'
    assert llvm_name("@", "$Globals") == '@"$Globals"'
    assert llvm_name("@", "2nd") == '@"2nd"'
    assert llvm_name("@", 'a"b') == '@"a\\22b"'


def test_integers_print_signed_and_i1_as_a_word():
    assert Int(32, 0xFFFFFFFF).text() == "i32 -1"
    assert Int(32, 97).text() == "i32 97"
    assert Int(1, 1).text() == "i1 true" and Int(1, 0).text() == "i1 false"


def test_a_parent_is_numbered_before_its_children_and_equal_tuples_are_one():
    """SlotTracker numbers named metadata's operands in order, each node before its operands
    (depth first, left to right); MDNode::get makes equal tuples one node."""
    module = Module(triple="dxil-ms-dx")
    module.functions = ["f"]
    shared = node(Int(32, 0))
    module.add_named("a", node(node(Int(32, 1)), shared, "s\\"))
    module.add_named("b", node(Function("f"), shared, None), node(Int(32, 0)))
    module.comments[shared] = "shared"
    assert module.render() == (
        "; ModuleID = 'wgc'\n"
        'target triple = "dxil-ms-dx"\n'
        "\n"
        "declare void @f()\n"
        "\n"
        "!a = !{!0}\n"
        "!b = !{!3, !2}\n"
        "\n"
        '!0 = !{!1, !2, !"s\\5C"}\n'
        "!1 = !{i32 1}\n"
        "!2 = !{i32 0}  ; shared\n"
        "!3 = !{void ()* @f, !2, null}\n")


def test_globals_and_their_types():
    module = Module()
    module.add_global(Global("Layers", "class.Texture2DArray<float4>", (3,)))
    module.add_global(Global("Frame", "Frame"))
    module.add_named("r", node(Global("Layers", "class.Texture2DArray<float4>", (3,))))
    text = module.render()
    assert '%"class.Texture2DArray<float4>" = type opaque\n%Frame = type opaque\n' in text
    assert '@Layers = external constant [3 x %"class.Texture2DArray<float4>"]\n@Frame = external constant %Frame\n' in text
    assert '!0 = !{[3 x %"class.Texture2DArray<float4>"]* @Layers}' in text
