; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<float>" = type opaque
declare void @"MyLoopEntry"()

declare void @"MyLoopBody"()

declare void @"MyOtherNode"()

@"Results" = external constant %"class.RWStructuredBuffer<float>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !16, !22, !24 }
!wgc.spirv.entryPoints = !{ !25, !26, !27 }
!wgc.experimental.tags = !{ !28, !29 }
!llvm.ident = !{ !30 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<float>"* @"Results", !"Results", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"MyLoopEntry", i32 0 }
!8 = !{ i32 0, i32 12, i32 2, i32 4 }
!9 = !{ i32 1, i32 33, i32 2, !8 }
!10 = !{ !9 }
!11 = !{ !"MyLoopBody", i32 0 }
!12 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !11 }
!13 = !{ !12 }
!14 = !{ i32 1, i32 1, i32 1 }
!15 = !{ i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !7, i32 16, i32 -1, i32 20, !10, i32 21, !13, i32 4, !14, i32 131072, i32 16, i32 131073, i32 1 }
!16 = !{ void ()* @"MyLoopEntry", !"MyLoopEntry", null, null, !15 }
!17 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !7 }
!18 = !{ !"MyOtherNode", i32 0 }
!19 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !18 }
!20 = !{ !17, !19 }
!21 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !11, i32 16, i32 -1, i32 20, !10, i32 21, !20, i32 4, !14 }
!22 = !{ void ()* @"MyLoopBody", !"MyLoopBody", null, null, !21 }
!23 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !18, i32 16, i32 -1, i32 20, !10, i32 4, !14 }
!24 = !{ void ()* @"MyOtherNode", !"MyOtherNode", null, null, !23 }
!25 = !{ void ()* @"MyLoopEntry", !"MyLoopEntry" }
!26 = !{ void ()* @"MyLoopBody", !"MyLoopBody" }
!27 = !{ void ()* @"MyOtherNode", !"MyOtherNode" }
!28 = !{ !"NodeMaxLoopIterations", i32 131072 }
!29 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!30 = !{ !"wgc 0.1.0" }
