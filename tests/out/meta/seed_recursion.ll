; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.StructuredBuffer<float>" = type opaque
%"class.RWStructuredBuffer<float>" = type opaque
declare void @"MyEntryNode"()

declare void @"MyRecursiveNode"()

declare void @"MyLeafNode"()

@"Input" = external constant %"class.StructuredBuffer<float>"
@"Output" = external constant %"class.RWStructuredBuffer<float>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !7 }
!dx.entryPoints = !{ !8, !18, !24, !26 }
!wgc.spirv.entryPoints = !{ !27, !28, !29 }
!wgc.experimental.tags = !{ !30, !31 }
!llvm.ident = !{ !32 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.StructuredBuffer<float>"* @"Input", !"Input", i32 0, i32 0, i32 1, i32 12, i32 0, !2 }
!4 = !{ !3 }
!5 = !{ i32 0, %"class.RWStructuredBuffer<float>"* @"Output", !"Output", i32 0, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!6 = !{ !5 }
!7 = !{ !4, !6, null, null }
!8 = !{ null, !"", null, !7, null }
!9 = !{ !"MyEntryNode", i32 0 }
!10 = !{ i32 0, i32 8, i32 2, i32 4 }
!11 = !{ i32 1, i32 33, i32 2, !10 }
!12 = !{ !11 }
!13 = !{ !"MyRecursiveNode", i32 0 }
!14 = !{ i32 1, i32 6, i32 2, !10, i32 3, i32 1, i32 0, !13 }
!15 = !{ !14 }
!16 = !{ i32 1, i32 1, i32 1 }
!17 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !9, i32 16, i32 -1, i32 20, !12, i32 21, !15, i32 4, !16 }
!18 = !{ void ()* @"MyEntryNode", !"MyEntryNode", null, null, !17 }
!19 = !{ i32 1, i32 6, i32 2, !10, i32 3, i32 2, i32 0, !13 }
!20 = !{ !"MyLeafNode", i32 0 }
!21 = !{ i32 1, i32 6, i32 2, !10, i32 3, i32 1, i32 0, !20 }
!22 = !{ !19, !21 }
!23 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !13, i32 16, i32 -1, i32 19, i32 16, i32 20, !12, i32 21, !22, i32 4, !16 }
!24 = !{ void ()* @"MyRecursiveNode", !"MyRecursiveNode", null, null, !23 }
!25 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !20, i32 16, i32 -1, i32 20, !12, i32 4, !16 }
!26 = !{ void ()* @"MyLeafNode", !"MyLeafNode", null, null, !25 }
!27 = !{ void ()* @"MyEntryNode", !"MyEntryNode" }
!28 = !{ void ()* @"MyRecursiveNode", !"MyRecursiveNode" }
!29 = !{ void ()* @"MyLeafNode", !"MyLeafNode" }
!30 = !{ !"NodeMaxLoopIterations", i32 131072 }
!31 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!32 = !{ !"wgc 0.1.0" }
